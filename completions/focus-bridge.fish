# fish completion for focus-bridge(1): its options as `focus-bridge --help` lists them, the
# modes of --downstream, and after `--` the daemon command for spawn mode.

function __focus_bridge_daemon_command
    set -l words (commandline -opc) (commandline -ct)
    set -l at (contains -i -- -- $words); or return
    __fish_complete_subcommand --commandline $words[(math $at + 1)..-1]
end

set -l options 'not contains -- -- (commandline -opc)'
complete -c focus-bridge -f
complete -c focus-bridge -n $options -l config -rF -d 'The configuration file'
complete -c focus-bridge -n $options -l downstream -xa 'auto spawn name address log' -d 'Where delivered notifications go'
complete -c focus-bridge -n $options -l downstream-name -x -d "The daemon's bus name (name and address modes)"
complete -c focus-bridge -n $options -l downstream-address -x -d 'The bus address of the daemon (address mode)'
complete -c focus-bridge -n $options -l state-dir -xa '(__fish_complete_directories)' -d 'The state folder'
complete -c focus-bridge -n $options -l replace -d 'Take org.freedesktop.Notifications from an owner that allows replacement'
complete -c focus-bridge -n $options -l print-downstream -d 'Print the downstream that would be used and why, then exit'
complete -c focus-bridge -n $options -l version -d 'Show the version'
complete -c focus-bridge -n $options -s h -l help -d 'Show help information'
complete -c focus-bridge -n 'contains -- -- (commandline -opc)' -xa '(__focus_bridge_daemon_command)'
