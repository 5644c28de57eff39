# bash completion for launchguard. Installed as
# share/bash-completion/completions/launchguard; or `source` this file.
# Subcommands, each subcommand's options (keep in step with src/cli/*.cpp and
# docs/launchguard.1), option values, and .toml / log / script file names.

_launchguard()
{
  local cur prev words cword
  if declare -F _init_completion >/dev/null 2>&1; then
    _init_completion -n = || return
  else
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi

  local commands="check estimate env render submit watch diagnose audit runs convert presets"
  local global="--json --color --verbose -v --version --help -h"
  local job="--gpu --nodes --gpus-per-node --preset-dir --hf-config --bridge-config --bridge-override"
  local launch="--state-dir --poll-interval --poll-max --vanish-after --hang-floor --hang-grace --no-hang-cancel"

  # The subcommand is the first word that is not a global option; after "--"
  # the words belong to Megatron or sbatch, so stop completing.
  local command="" i
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      --) return 0 ;;
      --color) ((i++)) ;;
      -*) ;;
      *) command=${words[i]}; break ;;
    esac
  done

  # Option values.
  case $prev in
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return 0 ;;
    --format)
      if [ "$command" = audit ]; then
        COMPREPLY=($(compgen -W "text json sarif" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "sh json" -- "$cur"))
      fi
      return 0 ;;
    --kind) COMPREPLY=($(compgen -W "models gpus all" -- "$cur")); return 0 ;;
    --state) COMPREPLY=($(compgen -W "FAILED OUT_OF_MEMORY TIMEOUT NODE_FAIL PREEMPTED CANCELLED COMPLETED" -- "$cur")); return 0 ;;
    --gpu)
      local gpus
      gpus=$(launchguard presets --kind gpus 2>/dev/null | awk 'NF && $1 !~ /:$/ {print $1}')
      COMPREPLY=($(compgen -W "$gpus" -- "$cur")); return 0 ;;
    --preset-dir|--state-dir) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
    --job|--catalogue) _launchguard_files toml; return 0 ;;
    -o|--output|--log|--jsonl) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    --nodes|--gpus-per-node|--retry|--poll-interval|--poll-max|--vanish-after|--hang-floor|--hang-grace|--set) return 0 ;;
  esac

  if [ -z "$command" ]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$global" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
    return 0
  fi

  local options="" files=""
  case $command in
    check|estimate) options="--jsonl $job"; files=toml ;;
    env) options="--explain --format --set $job"; files=toml ;;
    render) options="--output -o --force $job"; files=toml ;;
    submit) options="--dry-run --retry --retry-infra --detach --force $job $launch"; files=toml ;;
    watch) options="--log --hang-cancel $launch" ;;
    runs) options="$launch" ;;
    diagnose) options="--job --state --catalogue $job"; files=any ;;
    audit) options="--fix --fix=diff --format --gpu --template --preset-dir"; files=any ;;
    convert) options="--to $job"; files=toml ;;
    presets) options="--kind --preset-dir" ;;
    *) return 0 ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options --help --json --color --verbose" -- "$cur"))
    [[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
    return 0
  fi
  case $files in
    toml) _launchguard_files toml ;;
    any) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}

# Complete directories and *.EXT files.
_launchguard_files()
{
  local IFS=$'\n'
  COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X "!*.$1" -- "$cur"))
  compopt -o filenames 2>/dev/null
}

complete -F _launchguard launchguard
