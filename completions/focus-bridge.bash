# bash completion for focus-bridge(1): its options as `focus-bridge --help` lists them, the
# modes of --downstream, and after `--` the daemon command for spawn mode.

_focus_bridge() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} i
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            if ((i + 1 == COMP_CWORD)); then
                mapfile -t COMPREPLY < <(compgen -c -- "$cur")
            else
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            fi
            return
        fi
    done
    # --option=value: bash splits the word at the `=`.
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    case $prev in
        --config) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        --state-dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
        --downstream) mapfile -t COMPREPLY < <(compgen -W 'auto spawn name address log' -- "$cur") ;;
        --downstream-name | --downstream-address) COMPREPLY=() ;;
        *) mapfile -t COMPREPLY < <(compgen -W '--config --downstream --downstream-name --downstream-address
            --state-dir --replace --print-downstream --version --help -h --' -- "$cur") ;;
    esac
}

complete -o filenames -F _focus_bridge focus-bridge
