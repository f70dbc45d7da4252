# Bash completion for mdfi (CLI11 does not generate one). Install as
# /usr/share/bash-completion/completions/mdfi (cmake --install does), or source it.
# Everything is read from the binary itself: commands from `mdfi --help`, options and their
# allowed values ({a,b,c}) from `mdfi COMMAND --help`, network names from `mdfi models --names`
# (of the command's task), so the completion follows the binary as options are added.

# Prints the options of one --help text, one per line; with $2 set, prints the line head of that
# option instead (e.g. "-f,--format TEXT:{text,json,jsonl,csv}=text").
_mdfi_options() {
  printf '%s\n' "$1" | awk -v want="$2" '
    /^  -/ {
      head = substr($0, 3); cut = index(head, "  "); if (cut) head = substr(head, 1, cut - 1)
      rest = head; found = 0
      while (match(rest, /--?[a-zA-Z][a-zA-Z0-9-]*/)) {
        o = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
        if (want == "") print o; else if (o == want) found = 1
      }
      if (found) { print head; exit }
    }'
}

_mdfi() {
  local cur prev bin cmd i w help head
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  bin="${COMP_WORDS[0]}"
  local cmds
  # A command's description may go on under it (lines indented further): skipped.
  cmds=$("$bin" --help 2>/dev/null | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $1; next } s && /^   / { next } s { s = 0 }')
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    for w in $cmds; do [ "${COMP_WORDS[i]}" = "$w" ] && cmd="$w"; done
    [ -n "$cmd" ] && break
  done
  help=$("$bin" $cmd --help 2>/dev/null)

  if [[ "$prev" == -* ]]; then
    head=$(_mdfi_options "$help" "$prev")
    if [ -n "$head" ] && [[ "$head" =~ (TEXT|INT|UINT|FLOAT|NUMBER|SIZE) ]]; then
      case "$prev" in
        --net|-n)
          # detect and classify are offered only the networks of their task (mdfi models --task).
          local task=""
          case "$cmd" in detect|classify) task="--task $cmd" ;; esac
          COMPREPLY=($(compgen -W "$("$bin" models --names $task 2>/dev/null)" -- "$cur"))
          return ;;
      esac
      if [[ "$head" =~ \{([^}]*)\} ]]; then
        COMPREPLY=($(compgen -W "${BASH_REMATCH[1]//,/ }" -- "$cur"))
      elif [[ "$head" =~ TEXT ]]; then
        case "$prev" in
          --draw|--dump-layers) COMPREPLY=($(compgen -d -- "$cur")) ;;
          *) COMPREPLY=($(compgen -f -- "$cur")) ;;
        esac
      fi
      return
    fi
  fi

  if [ -z "$cmd" ]; then
    COMPREPLY=($(compgen -W "$cmds $(_mdfi_options "$help")" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_mdfi_options "$help") -q --quiet -v --verbose" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _mdfi mdfi
