
# --- Codex CLI ---------------------------------------------------------------------------------
# Codex reads $CODEX_HOME/config.toml (default ~/.codex). The gateway becomes the provider
# "switchyard"; the token is its `experimental_bearer_token`, which Codex sends as
# `Authorization: Bearer` without needing an environment variable (docs/installers.md).

# The existing configuration without what this installer owns: the root keys `model`,
# `model_provider` and `model_context_window` (they must precede every table) and the
# [model_providers.switchyard] table.
strip_owned_toml() {
  awk '
    BEGIN { root = 1; skip = 0; blanks = 0 }
    {
      line = $0
      if (line ~ /^[ \t]*\[/) {
        root = 0
        name = line
        sub(/^[ \t]*\[\[?[ \t]*/, "", name)
        sub(/[ \t]*\]\]?[ \t]*(#.*)?$/, "", name)
        gsub(/["\047]/, "", name)
        gsub(/[ \t]*\.[ \t]*/, ".", name)
        skip = (name == "model_providers.switchyard" || index(name, "model_providers.switchyard.") == 1)
      }
      if (skip) next
      if (root && line ~ /^[ \t]*["\047]?(model|model_provider|model_context_window)["\047]?[ \t]*=/) next
      if (line ~ /^[ \t]*$/) { blanks++; next }
      while (blanks > 0) { print ""; blanks-- }
      print line
    }
  ' "$1"
}

# Sets $context_window to the chosen model's context window from the model list (empty when the
# gateway does not list it). Codex knows no metadata for a gateway model and would otherwise
# guess the window it compacts against. Its output limit has no configuration key that Codex
# reads (it reports `model_max_output_tokens` as an unrecognized setting), so none is written.
# A model catalog entry (`model_catalog_json`, `model_catalog_url`) would carry both, but Codex
# then takes its whole agent prompt from the entry instead of its own, so none is written either.
read_model_context_window() {
  context_window=''
  [ -n "$model" ] || return 0
  context_window=$(tr ',{}[]' '\n\n\n\n\n' <"$models_file" | awk -v wanted="$model" '
    { line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t\r]+$/, "", line) }
    line ~ /^"id"[ \t]*:[ \t]*"/ {
      id = line
      sub(/^"id"[ \t]*:[ \t]*"/, "", id)
      sub(/"$/, "", id)
      next
    }
    id != wanted { next }
    line ~ /^"context_window"[ \t]*:[ \t]*[0-9]+$/ { window = line; sub(/^[^:]*:[ \t]*/, "", window) }
    END { print window }
  ') || context_window=''
}

configure_codex() {
  codex_home=${CODEX_HOME:-$HOME/.codex}
  config="$codex_home/config.toml"
  mkdir -p "$codex_home" || fail "Cannot create $codex_home."
  temporary="$config.switchyard-tmp.$$"
  rm -f "$temporary"
  {
    printf 'model_provider = "switchyard"\n'
    if [ -n "$model" ]; then
      printf 'model = "%s"\n' "$model"
    fi
    if [ -n "$context_window" ]; then
      printf 'model_context_window = %s\n' "$context_window"
    fi
    if [ -f "$config" ]; then
      strip_owned_toml "$config" || fail "Cannot read $config."
    fi
    printf '\n[model_providers.switchyard]\n'
    printf 'name = "Switchyard"\n'
    printf 'base_url = "%s/v1"\n' "$base_url"
    printf 'wire_api = "responses"\n'
    printf 'experimental_bearer_token = "%s"\n' "$token"
  } >"$temporary" || {
    rm -f "$temporary"
    fail "Cannot write $config."
  }
  backup_file "$config"
  install_private_file "$temporary" "$config"

  info "Codex now uses the Switchyard gateway at $base_url/v1${model:+ with model $model}."
  report_written "$config"
  if [ -z "$model" ]; then
    info '  No model was set: add model = "<id from GET /v1/models>" to the file.'
  fi
  info 'Start it with: codex'
}

main() {
  make_work_dir
  info "Switchyard installer for Codex (gateway: $base_url)"
  read_token
  verify_token
  choose_model
  read_model_context_window
  configure_codex
}

main "$@"
