# Bash completion for mdfi (CLI11 does not generate one). Install as
# /usr/share/bash-completion/completions/mdfi (cmake --install does), or source it.
# Network names come from `mdfi models --names`, so they follow the binary; a [cli] test checks
# that every option in each command's --help is listed here.
_mdfi() {
  local cur prev cmd i
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in
      detect|classify|models|devices|info|plan|gen-weights|bench) cmd="${COMP_WORDS[i]}"; break ;;
    esac
  done

  case "$prev" in
    --net|-n)
      COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" models --names 2>/dev/null)" -- "$cur")); return ;;
    --format|-f)
      if [ "$cmd" = bench ]; then COMPREPLY=($(compgen -W "md csv json" -- "$cur"))
      else COMPREPLY=($(compgen -W "text json jsonl csv" -- "$cur")); fi
      return ;;
    --draw-ext) COMPREPLY=($(compgen -W "jpg png" -- "$cur")); return ;;
    --backend) COMPREPLY=($(compgen -W "cpu opencl" -- "$cur")); return ;;
    --compat) COMPREPLY=($(compgen -W "pjreddie alexeyab auto" -- "$cur")); return ;;
    --draw|--dump-layers) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --cfg|-c) COMPREPLY=($(compgen -f -X '!*.cfg' -- "$cur") $(compgen -d -- "$cur")); return ;;
    --weights|-w) COMPREPLY=($(compgen -f -X '!*.weights' -- "$cur") $(compgen -d -- "$cur")); return ;;
    --names|--labels|--list|-l|--output|-o|--mem-report|--mem-plot) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --thresh|-t|--hier|--nms|--top|-k|--width|--height|--seed|--max-mem|--threads|-j|--device|--warmup|--repeat|-r) return ;;
  esac

  local common="--help -q --quiet -v --verbose"
  local model="--net -n --cfg -c --width --height"
  local run="$model --weights -w --names --labels --compat --list -l --format -f --output -o --draw --draw-ext --fail-fast --dump-layers --mem-report --mem-plot --max-mem --threads -j --reference --backend --device"
  local opts
  case "$cmd" in
    "") opts="detect classify models devices info plan gen-weights bench --version $common" ;;
    detect) opts="$run --thresh -t --hier --nms --top -k $common" ;;
    classify) opts="$run --top -k $common" ;;
    models) opts="--porcelain --names $common" ;;
    devices) opts="$common" ;;
    bench) opts="$model --weights -w --names --labels --compat --warmup --repeat -r --format -f --threads -j --reference --backend --device $common" ;;
    info) opts="$model --weights -w --layers $common" ;;
    plan) opts="$model $common" ;;
    gen-weights) opts="$model --output -o --seed --old-header $common" ;;
  esac
  if [[ "$cur" == -* || -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _mdfi mdfi
