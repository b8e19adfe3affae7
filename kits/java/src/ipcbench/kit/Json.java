package ipcbench.kit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as the control channel carries it (docs/worker-protocol.md): objects are maps in field
 * order, arrays lists, integers Long, other numbers Double. The JDK has no JSON; this is the
 * smallest strict reader and writer the protocol needs. Input is untrusted: depth is bounded,
 * every malformed text is refused with where it broke.
 */
public final class Json {
    public static final int MAX_DEPTH = 64;

    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    public static Object parse(String text) {
        Json p = new Json(text);
        p.skipSpace();
        Object value = p.value(0);
        p.skipSpace();
        if (p.at != text.length()) throw p.fail("text after the value");
        return value;
    }

    private IllegalArgumentException fail(String what) {
        return new IllegalArgumentException(what + " at offset " + at);
    }

    private void skipSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            at++;
        }
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) throw fail("nesting deeper than " + MAX_DEPTH);
        if (at >= text.length()) throw fail("a value expected");
        char c = text.charAt(at);
        switch (c) {
            case '{': return object(depth);
            case '[': return array(depth);
            case '"': return string();
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default: return number();
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) throw fail("an unknown word");
        at += word.length();
        return value;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> out = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return out;
        }
        while (true) {
            skipSpace();
            if (at >= text.length() || text.charAt(at) != '"') throw fail("a field name expected");
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            out.put(key, value(depth + 1));
            skipSpace();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect('}');
            return out;
        }
    }

    private List<Object> array(int depth) {
        List<Object> out = new ArrayList<>();
        at++;
        skipSpace();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return out;
        }
        while (true) {
            skipSpace();
            out.add(value(depth + 1));
            skipSpace();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect(']');
            return out;
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) throw fail("'" + c + "' expected");
        at++;
    }

    private String string() {
        at++;
        StringBuilder out = new StringBuilder();
        while (true) {
            if (at >= text.length()) throw fail("an unterminated string");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw fail("a control character in a string");
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) throw fail("an unterminated escape");
            char e = text.charAt(at++);
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) throw fail("a short \\u escape");
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException x) {
                        throw fail("a bad \\u escape");
                    }
                    at += 4;
                    break;
                default: throw fail("an unknown escape");
            }
        }
    }

    private Object number() {
        int start = at;
        if (at < text.length() && text.charAt(at) == '-') at++;
        boolean integral = true;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c >= '0' && c <= '9') {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                at++;
            } else {
                break;
            }
        }
        String digits = text.substring(start, at);
        if (digits.isEmpty() || digits.equals("-")) throw fail("a value expected");
        try {
            if (integral) {
                try {
                    return Long.parseLong(digits);
                } catch (NumberFormatException big) {
                    return Double.parseDouble(digits);
                }
            }
            return Double.parseDouble(digits);
        } catch (NumberFormatException x) {
            throw fail("a malformed number");
        }
    }

    public static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        write(out, value);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder out, Object v) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof String) {
            quote(out, (String) v);
        } else if (v instanceof Boolean || v instanceof Long || v instanceof Integer) {
            out.append(v);
        } else if (v instanceof Number) {
            double d = ((Number) v).doubleValue();
            out.append(Double.isFinite(d) ? Double.toString(d) : "null");
        } else if (v instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                if (!first) out.append(',');
                first = false;
                quote(out, e.getKey());
                out.append(':');
                write(out, e.getValue());
            }
            out.append('}');
        } else if (v instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<Object>) v) {
                if (!first) out.append(',');
                first = false;
                write(out, item);
            }
            out.append(']');
        } else if (v instanceof long[]) {
            out.append('[');
            long[] a = (long[]) v;
            for (int i = 0; i < a.length; i++) {
                if (i > 0) out.append(',');
                out.append(a[i]);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
        }
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
            }
        }
        out.append('"');
    }
}
