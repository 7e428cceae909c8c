# bash completion for espbench (installed as share/bash-completion/completions/espbench).
# Commands and each command's options come from the espbench being completed
# (`espbench --help`, `espbench help CMD`), so they stay those of the installed
# version; chips and tiers from `espbench profiles list`.

_espbench_commands() {
    "$1" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}'
}

_espbench_options() {
    "$1" help "$2" 2>/dev/null | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u
}

_espbench_chips() {
    "$1" profiles list 2>/dev/null | awk 'NR > 1 && /^[a-z0-9]+ / && $3 != "" {print $1} /^$/ {exit}'
}

_espbench_tiers() { # tiers of the chip named by --chip on the line (all chips' otherwise)
    local prog=$1 chip=$2
    "$prog" profiles list 2>/dev/null | awk -v chip="$chip" 'NR > 1 && /^$/ {exit}
        NR > 1 && (chip == "" || $1 == chip) {sub(/^[^ ]+ +[^ ]+ +/, ""); n = split($0, t, /, */); for (i = 1; i <= n; i++) print t[i]}' | sort -u
}

_espbench() {
    local cur prev prog=${COMP_WORDS[0]} cmd="" chip="" i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --profiles) ((i++)) ;;
        --chip) chip=${COMP_WORDS[i + 1]} ;;
        -*) ;;
        *) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} ;;
        esac
    done
    case $prev in
    --profiles | --out | --cache-dir | --idf-repo | --idf-cache)
        COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --chip | --peer-chip | --coprocessor)
        COMPREPLY=($(compgen -W "$(_espbench_chips "$prog")" -- "$cur")); return ;;
    --tier | --peer-tier)
        COMPREPLY=($(compgen -W "all $(_espbench_tiers "$prog" "$chip")" -- "$cur")); return ;;
    --port | --peer-port | --coprocessor-port)
        COMPREPLY=($(compgen -W "$(ls /dev/serial/by-id/* /dev/ttyUSB* /dev/ttyACM* 2>/dev/null)" -- "$cur")); return ;;
    --tests)
        COMPREPLY=($(compgen -W "tcp_tx tcp_rx udp_tx udp_rx latency raw_tx raw_rx" -- "$cur")); return ;;
    --transport)
        COMPREPLY=($(compgen -W "sdio spi spi-hd uart" -- "$cur")); return ;;
    --format)
        COMPREPLY=($(compgen -W "csv json rst md html" -- "$cur")); return ;;
    --lab | --manifest | --pattern | --junit | --model | --firmware-dir | -o | --output | --sdkconfig)
        COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --idf | --cache | --firmware)
        COMPREPLY=($(compgen -d -- "$cur")); return ;;
    esac
    if [ -z "$cmd" ]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--verbose --quiet --profiles --help --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_espbench_commands "$prog") help" -- "$cur"))
        fi
        return
    fi
    case $cmd in
    help) COMPREPLY=($(compgen -W "$(_espbench_commands "$prog")" -- "$cur")); return ;;
    profiles)
        if [[ $cur != -* ]] && [ "$prev" = profiles ]; then
            COMPREPLY=($(compgen -W "list show" -- "$cur")); return
        fi
        if [ "$prev" = show ]; then
            COMPREPLY=($(compgen -W "$(_espbench_chips "$prog")" -- "$cur")); return
        fi ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_espbench_options "$prog" "$cmd")" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _espbench espbench
