# bash completion for trainbench: subcommands, flags (read from the CLI's own --help),
# recipe files, catalog names after -s target=/model=, and list subjects.
_trainbench() {
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -n = || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    fi
    local tb=${words[0]}
    local sub="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --recipes|--templates|--runs|-s|--set|-o|--output) ((i++)) ;;
            -*) ;;
            *) sub=${words[i]}; break ;;
        esac
    done

    if [[ -z $sub ]]; then
        local cmds
        cmds=$("$tb" --help 2>/dev/null | awk '/^Subcommands:/{f=1; next} f && /^  [a-z]/{print $1}')
        COMPREPLY=($(compgen -W "$cmds --help --version --json --verbose --quiet --recipes --templates --runs" -- "$cur"))
        return
    fi

    case $prev in
        -o|--output|--all|--compare|--templates|--recipes|--runs)
            COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --html|--junit|--csv-file)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        -s|--set)
            case $cur in
                target=*) COMPREPLY=($(compgen -P target= -W "$("$tb" list targets --names 2>/dev/null)" -- "${cur#target=}")) ;;
                model=*) COMPREPLY=($(compgen -P model= -W "$("$tb" list models --names 2>/dev/null)" -- "${cur#model=}")) ;;
                *) COMPREPLY=($(compgen -S = -W "target model framework framework_version nodes gpus_per_node parallelism.tensor parallelism.pipeline parallelism.virtual_pipeline parallelism.context parallelism.sequence_parallel batch.micro batch.global precision steps recompute.granularity data container.image env metrics.window metrics.flops slurm.partition slurm.account slurm.time" -- "$cur")); compopt -o nospace 2>/dev/null ;;
            esac
            return ;;
    esac

    if [[ $cur == -* ]]; then
        local flags
        flags=$("$tb" "$sub" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,' | sort -u)
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
        return
    fi
    case $sub in
        list) COMPREPLY=($(compgen -W "targets models frameworks recipes gpus" -- "$cur")); return ;;
    esac
    # Recipe, sweep and log files, and directories to descend into.
    local f
    COMPREPLY=()
    while IFS= read -r f; do
        if [[ -d $f ]]; then
            COMPREPLY+=("$f/")
        else
            case $f in *.yaml|*.yml|*.json|*.log|*.txt|*.out|*tfevents*) COMPREPLY+=("$f") ;; esac
        fi
    done < <(compgen -f -- "$cur")
    compopt -o nospace 2>/dev/null
}
complete -F _trainbench trainbench
