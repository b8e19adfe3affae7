# bash completion for ipchost: subcommands, options, transport ids and option keys.
# Everything is asked of ipchost itself (--help --format words, --list --format json,
# --describe ID --format json), so it follows the installed version and the plugins found.
_ipchost_json_values() {  # _ipchost_json_values FIELD: the string values of "FIELD": "..."
  sed -n "s/.*\"$1\": \"\\([^\"]*\\)\".*/\\1/p"
}

_ipchost() {
  local cur prev ipchost i plugin_args=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD - 1]:-}"
  ipchost="${COMP_WORDS[0]}"
  # The plugin folders and transports already on the line narrow what is offered.
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in
    --plugin-dir) plugin_args+=(--plugin-dir "${COMP_WORDS[i + 1]:-}") ;;
    esac
  done
  case "$prev" in
  --plugin | -p | --describe)
    local listing ids names
    listing="$("$ipchost" "${plugin_args[@]}" --list --format json 2>/dev/null)"
    ids="$(_ipchost_json_values id <<<"$listing")"
    names="$(sed -n 's/.*"name": "\([^"]*\)".*/\1/p' <<<"$listing" | sort -u)"
    local prefix="" word="$cur"
    if [[ "$cur" == *,* ]]; then prefix="${cur%,*},"; word="${cur##*,}"; fi
    mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "$ids $names" -- "$word")
    return
    ;;
  --opt | -o)
    local selected="" keys
    for ((i = 1; i < COMP_CWORD; i++)); do
      case "${COMP_WORDS[i]}" in --plugin | -p) selected="${COMP_WORDS[i + 1]:-}" ;; esac
    done
    if [ -n "$selected" ]; then
      keys="$(for spec in ${selected//,/ }; do
        "$ipchost" "${plugin_args[@]}" --describe "$spec" --format json 2>/dev/null
      done | _ipchost_json_values key | sort -u)"
    else
      keys="$("$ipchost" "${plugin_args[@]}" --list --format json 2>/dev/null |
        _ipchost_json_values key | sort -u)"
    fi
    compopt -o nospace 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -S = -W "$keys" -- "$cur")
    return
    ;;
  --plugin-dir | --dir)
    mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    return
    ;;
  --output | --histogram | --token-file | --base-ipchost | --new-ipchost)
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    return
    ;;
  --mode | -m) mapfile -t COMPREPLY < <(compgen -W "throughput latency both" -- "$cur"); return ;;
  --format | -f) mapfile -t COMPREPLY < <(compgen -W "table json csv markdown html man" -- "$cur"); return ;;
  --zero-copy) mapfile -t COMPREPLY < <(compgen -W "auto on off" -- "$cur"); return ;;
  --io) mapfile -t COMPREPLY < <(compgen -W "auto threads epoll uring iocp" -- "$cur"); return ;;
  --lang) mapfile -t COMPREPLY < <(compgen -W "c cpp" -- "$cur"); return ;;
  --rounds | --repeat) mapfile -t COMPREPLY < <(compgen -W "auto" -- "$cur"); return ;;
  esac
  local words
  words="$("$ipchost" --help --format words 2>/dev/null | tr -d '=')"
  if [[ "$cur" != -* ]]; then
    case "${COMP_WORDS[1]:-}" in
    compare | report | trend) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
    esac
    [ "$COMP_CWORD" -eq 1 ] || return
    words="$(grep -v '^-' <<<"$words")"
  else
    words="$(grep '^-' <<<"$words")"
  fi
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}
complete -F _ipchost ipchost
