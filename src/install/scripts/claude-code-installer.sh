
# --- Claude Code -------------------------------------------------------------------------------
# Claude Code reads `env` from its user settings file and applies it at start-up; a bearer token
# in ANTHROPIC_AUTH_TOKEN needs no "use this API key?" confirmation (docs/installers.md).

# Merges the gateway keys into the settings JSON in $1, writing the result to $2. Exit status 3
# means the existing file is not a JSON object (with an object or no `env`).
merge_settings_with_node() {
  SWITCHYARD_TOKEN=$token SWITCHYARD_BASE_URL=$base_url SWITCHYARD_MODEL_ID=$model \
    node - "$1" "$2" <<'EOF'
const fs = require('fs');
const [source, target] = process.argv.slice(2);
let settings = {};
try {
  const text = fs.existsSync(source) ? fs.readFileSync(source, 'utf8') : '';
  if (text.trim() !== '') settings = JSON.parse(text);
} catch {
  process.exit(3);
}
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
if (!isObject(settings) || (settings.env !== undefined && !isObject(settings.env))) process.exit(3);
const env = Object.assign({}, settings.env || {});
delete env.ANTHROPIC_API_KEY;
env.ANTHROPIC_BASE_URL = process.env.SWITCHYARD_BASE_URL;
env.ANTHROPIC_AUTH_TOKEN = process.env.SWITCHYARD_TOKEN;
const model = process.env.SWITCHYARD_MODEL_ID;
if (model) {
  env.ANTHROPIC_MODEL = model;
  env.ANTHROPIC_DEFAULT_HAIKU_MODEL = model;
}
settings.env = env;
fs.writeFileSync(target, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
EOF
}

merge_settings_with_python() {
  SWITCHYARD_TOKEN=$token SWITCHYARD_BASE_URL=$base_url SWITCHYARD_MODEL_ID=$model \
    python3 - "$1" "$2" <<'EOF'
import json, os, sys
source, target = sys.argv[1], sys.argv[2]
settings = {}
try:
    text = open(source, encoding='utf-8').read() if os.path.exists(source) else ''
    if text.strip():
        settings = json.loads(text)
except ValueError:
    sys.exit(3)
if not isinstance(settings, dict) or not isinstance(settings.get('env', {}), dict):
    sys.exit(3)
env = dict(settings.get('env', {}))
env.pop('ANTHROPIC_API_KEY', None)
env['ANTHROPIC_BASE_URL'] = os.environ['SWITCHYARD_BASE_URL']
env['ANTHROPIC_AUTH_TOKEN'] = os.environ['SWITCHYARD_TOKEN']
model = os.environ.get('SWITCHYARD_MODEL_ID', '')
if model:
    env['ANTHROPIC_MODEL'] = model
    env['ANTHROPIC_DEFAULT_HAIKU_MODEL'] = model
settings['env'] = env
descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(descriptor, 'w', encoding='utf-8') as output:
    json.dump(settings, output, indent=2, ensure_ascii=False)
    output.write('\n')
EOF
}

# A settings file with only the gateway keys (no JSON tool, or nothing worth keeping).
write_fresh_settings() {
  {
    printf '{\n  "env": {\n'
    printf '    "ANTHROPIC_BASE_URL": "%s",\n' "$base_url"
    printf '    "ANTHROPIC_AUTH_TOKEN": "%s"' "$token"
    if [ -n "$model" ]; then
      printf ',\n    "ANTHROPIC_MODEL": "%s",\n' "$model"
      printf '    "ANTHROPIC_DEFAULT_HAIKU_MODEL": "%s"' "$model"
    fi
    printf '\n  }\n}\n'
  } >"$1"
}

configure_claude_code() {
  config_dir=${CLAUDE_CONFIG_DIR:-$HOME/.claude}
  settings="$config_dir/settings.json"
  mkdir -p "$config_dir" || fail "Cannot create $config_dir."
  temporary="$settings.switchyard-tmp.$$"
  rm -f "$temporary"
  has_content=0
  if [ -s "$settings" ] && grep -q '[^[:space:]]' "$settings"; then
    has_content=1
  fi
  merged=0
  replaced_existing=0
  if [ "$has_content" = 1 ]; then
    json_tool=$(find_json_tool)
    status=1
    case $json_tool in
      node) merge_settings_with_node "$settings" "$temporary"; status=$? ;;
      python3) merge_settings_with_python "$settings" "$temporary"; status=$? ;;
    esac
    if [ "$status" = 0 ]; then
      merged=1
    elif [ "$status" != 3 ] && [ -n "$json_tool" ]; then
      rm -f "$temporary"
      fail "Merging $settings with $json_tool failed. Nothing was changed."
    else
      replaced_existing=1
    fi
  fi
  if [ "$merged" = 0 ]; then
    rm -f "$temporary"
    write_fresh_settings "$temporary"
  fi
  backup_file "$settings"
  install_private_file "$temporary" "$settings"

  info "Claude Code now uses the Switchyard gateway at $base_url${model:+ with model $model}."
  report_written "$settings"
  if [ "$replaced_existing" = 1 ]; then
    info "  The previous settings could not be merged (no node or python3, or not a JSON object);"
    info "  copy any other settings you need back from the backup."
  fi
  if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
    info "  Note: ANTHROPIC_API_KEY is set in this shell; unset it, or Claude Code sends that key instead."
  fi
  info 'Start it with: claude'
}

main() {
  make_work_dir
  info "Switchyard installer for Claude Code (gateway: $base_url)"
  read_token
  verify_token
  choose_model
  configure_claude_code
}

main "$@"
