using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace IpcBench.Kit {
/// <summary>
/// JSON as the control channel carries it (docs/worker-protocol.md): objects are
/// Dictionary&lt;string, object&gt; in field order, arrays List&lt;object&gt;, integers long, other
/// numbers double. Mono's class library has no JSON reader that tells 1 from 1.0 and bounds
/// depth; this is the smallest strict one the protocol needs. Input is untrusted: depth is
/// bounded, every malformed text is refused with where it broke.
/// </summary>
public sealed class Json {
    public const int MaxDepth = 64;
    readonly string text;
    int at;

    Json(string text) {
        this.text = text;
    }

    public static object Parse(string text) {
        var p = new Json(text);
        p.SkipSpace();
        object value = p.Value(0);
        p.SkipSpace();
        if (p.at != text.Length) throw p.Fail("text after the value");
        return value;
    }

    FormatException Fail(string what) {
        return new FormatException(what + " at offset " + at);
    }

    void SkipSpace() {
        while (at < text.Length) {
            char c = text[at];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            at++;
        }
    }

    object Value(int depth) {
        if (depth > MaxDepth) throw Fail("nesting deeper than " + MaxDepth);
        if (at >= text.Length) throw Fail("a value expected");
        switch (text[at]) {
        case '{': return Object(depth);
        case '[': return Array(depth);
        case '"': return String();
        case 't': return Literal("true", true);
        case 'f': return Literal("false", false);
        case 'n': return Literal("null", null);
        default: return Number();
        }
    }

    object Literal(string word, object value) {
        if (string.CompareOrdinal(text, at, word, 0, word.Length) != 0) throw Fail("an unknown word");
        at += word.Length;
        return value;
    }

    Dictionary<string, object> Object(int depth) {
        var o = new Dictionary<string, object>();
        at++;
        SkipSpace();
        if (at < text.Length && text[at] == '}') {
            at++;
            return o;
        }
        while (true) {
            SkipSpace();
            if (at >= text.Length || text[at] != '"') throw Fail("a field name expected");
            string key = String();
            SkipSpace();
            Expect(':');
            SkipSpace();
            o[key] = Value(depth + 1);
            SkipSpace();
            if (at < text.Length && text[at] == ',') {
                at++;
                continue;
            }
            Expect('}');
            return o;
        }
    }

    List<object> Array(int depth) {
        var o = new List<object>();
        at++;
        SkipSpace();
        if (at < text.Length && text[at] == ']') {
            at++;
            return o;
        }
        while (true) {
            SkipSpace();
            o.Add(Value(depth + 1));
            SkipSpace();
            if (at < text.Length && text[at] == ',') {
                at++;
                continue;
            }
            Expect(']');
            return o;
        }
    }

    void Expect(char c) {
        if (at >= text.Length || text[at] != c) throw Fail("'" + c + "' expected");
        at++;
    }

    string String() {
        at++;
        var o = new StringBuilder();
        while (true) {
            if (at >= text.Length) throw Fail("an unterminated string");
            char c = text[at++];
            if (c == '"') return o.ToString();
            if (c < 0x20) throw Fail("a control character in a string");
            if (c != '\\') {
                o.Append(c);
                continue;
            }
            if (at >= text.Length) throw Fail("an unterminated escape");
            char e = text[at++];
            switch (e) {
            case '"': o.Append('"'); break;
            case '\\': o.Append('\\'); break;
            case '/': o.Append('/'); break;
            case 'b': o.Append('\b'); break;
            case 'f': o.Append('\f'); break;
            case 'n': o.Append('\n'); break;
            case 'r': o.Append('\r'); break;
            case 't': o.Append('\t'); break;
            case 'u':
                int code;
                if (at + 4 > text.Length ||
                    !int.TryParse(text.Substring(at, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out code))
                    throw Fail("a bad \\u escape");
                o.Append((char)code);
                at += 4;
                break;
            default: throw Fail("an unknown escape");
            }
        }
    }

    object Number() {
        int start = at;
        if (at < text.Length && text[at] == '-') at++;
        bool integral = true;
        while (at < text.Length) {
            char c = text[at];
            if (c >= '0' && c <= '9') {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                at++;
            } else {
                break;
            }
        }
        string digits = text.Substring(start, at - start);
        if (digits.Length == 0 || digits == "-") throw Fail("a value expected");
        long n;
        if (integral && long.TryParse(digits, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out n)) return n;
        double d;
        if (double.TryParse(digits, NumberStyles.Float, CultureInfo.InvariantCulture, out d)) return d;
        throw Fail("a malformed number");
    }

    public static string Write(object value) {
        var o = new StringBuilder(256);
        Write(o, value);
        return o.ToString();
    }

    static void Write(StringBuilder o, object v) {
        if (v == null) {
            o.Append("null");
        } else if (v is string) {
            Quote(o, (string)v);
        } else if (v is bool) {
            o.Append((bool)v ? "true" : "false");
        } else if (v is long || v is int) {
            o.Append(Convert.ToInt64(v).ToString(CultureInfo.InvariantCulture));
        } else if (v is double) {
            double d = (double)v;
            o.Append(double.IsNaN(d) || double.IsInfinity(d) ? "null" : d.ToString("R", CultureInfo.InvariantCulture));
        } else if (v is IDictionary<string, object>) {
            o.Append('{');
            bool first = true;
            foreach (var e in (IDictionary<string, object>)v) {
                if (!first) o.Append(',');
                first = false;
                Quote(o, e.Key);
                o.Append(':');
                Write(o, e.Value);
            }
            o.Append('}');
        } else if (v is IEnumerable) {
            o.Append('[');
            bool first = true;
            foreach (object item in (IEnumerable)v) {
                if (!first) o.Append(',');
                first = false;
                Write(o, item);
            }
            o.Append(']');
        } else {
            throw new ArgumentException("no JSON form for " + v.GetType().Name);
        }
    }

    static void Quote(StringBuilder o, string s) {
        o.Append('"');
        foreach (char c in s) {
            switch (c) {
            case '"': o.Append("\\\""); break;
            case '\\': o.Append("\\\\"); break;
            case '\n': o.Append("\\n"); break;
            case '\r': o.Append("\\r"); break;
            case '\t': o.Append("\\t"); break;
            default:
                if (c < 0x20) o.Append("\\u").Append(((int)c).ToString("x4"));
                else o.Append(c);
                break;
            }
        }
        o.Append('"');
    }
}
}
