# A plugin author's guard: deny a tool call whose command contains "rm -rf".
case $(cat) in
*'rm -rf'*) printf '{"schema_version":1,"action":"deny","reason":"recursive rm"}\n' ;;
*) printf '{"schema_version":1,"action":"allow"}\n' ;;
esac
