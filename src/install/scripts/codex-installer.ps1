
# --- Codex CLI ---------------------------------------------------------------------------------
# Codex reads $env:CODEX_HOME\config.toml (default ~\.codex). The gateway becomes the provider
# "switchyard"; the token is its `experimental_bearer_token`, which Codex sends as
# `Authorization: Bearer` without needing an environment variable (docs/installers.md).

# The existing configuration without what this installer owns: the root keys `model`,
# `model_provider` and `model_context_window` (they must precede every table) and the
# [model_providers.switchyard] table.
function Remove-SwitchyardOwnedToml([string[]]$Lines) {
  $root = $true
  $skip = $false
  $blanks = 0
  $kept = New-Object System.Collections.Generic.List[string]
  foreach ($line in $Lines) {
    if ($line -match '^\s*\[') {
      $root = $false
      $name = $line -replace '^\s*\[\[?\s*', '' -replace '\s*\]\]?\s*(#.*)?$', ''
      $name = $name -replace '["'']', '' -replace '\s*\.\s*', '.'
      $skip = ($name -ceq 'model_providers.switchyard') -or $name.StartsWith('model_providers.switchyard.')
    }
    if ($skip) { continue }
    if ($root -and $line -cmatch '^\s*["'']?(model|model_provider|model_context_window)["'']?\s*=') { continue }
    if ($line -match '^\s*$') { $blanks++; continue }
    while ($blanks -gt 0) { $kept.Add(''); $blanks-- }
    $kept.Add($line)
  }
  return , $kept.ToArray()
}

# The chosen model's context window from the model list; '' when the gateway does not list it.
# Codex knows no metadata for a gateway model and would otherwise guess the window it compacts
# against. Its output limit has no configuration key that Codex reads (it reports
# `model_max_output_tokens` as an unrecognized setting), so none is written. A model catalog
# entry (`model_catalog_json`, `model_catalog_url`) would carry both, but Codex then takes its
# whole agent prompt from the entry instead of its own, so none is written either.
function Get-SwitchyardContextWindow([object[]]$Models, [string]$Model) {
  if (-not $Model) { return '' }
  $entry = @($Models | Where-Object { $_.id -ceq $Model })[0]
  if ($null -eq $entry) { return '' }
  $window = "$($entry.context_window)"
  if ($window -match '^[0-9]+$') { return $window }
  return ''
}

function Set-SwitchyardCodexConfig([string]$Token, [string]$Model, [string]$ContextWindow) {
  $codexHome = $env:CODEX_HOME
  if (-not $codexHome) { $codexHome = Join-Path $HOME '.codex' }
  $configPath = Join-Path $codexHome 'config.toml'
  New-Item -ItemType Directory -Force -Path $codexHome | Out-Null

  $lines = New-Object System.Collections.Generic.List[string]
  $lines.Add('model_provider = "switchyard"')
  if ($Model) { $lines.Add("model = ""$Model""") }
  if ($ContextWindow) { $lines.Add("model_context_window = $ContextWindow") }
  if (Test-Path -LiteralPath $configPath) {
    foreach ($line in (Remove-SwitchyardOwnedToml ([System.IO.File]::ReadAllLines($configPath)))) {
      $lines.Add($line)
    }
  }
  $lines.Add('')
  $lines.Add('[model_providers.switchyard]')
  $lines.Add('name = "Switchyard"')
  $lines.Add("base_url = ""$SwitchyardBaseUrl/v1""")
  $lines.Add('wire_api = "responses"')
  $lines.Add("experimental_bearer_token = ""$Token""")

  $backup = Backup-SwitchyardFile $configPath
  Write-SwitchyardPrivateFile $configPath (($lines -join "`n") + "`n")

  $modelNote = ''
  if ($Model) { $modelNote = " with model $Model" }
  Write-Host "Codex now uses the Switchyard gateway at $SwitchyardBaseUrl/v1$modelNote."
  Write-SwitchyardReport $configPath $backup
  if (-not $Model) {
    Write-Host '  No model was set: add model = "<id from GET /v1/models>" to the file.'
  }
  Write-Host 'Start it with: codex'
}

Invoke-SwitchyardInstaller {
  Write-Host "Switchyard installer for Codex (gateway: $SwitchyardBaseUrl)"
  $token = Read-SwitchyardToken
  $models = Get-SwitchyardModelList $token
  $model = Select-SwitchyardModel (Get-SwitchyardModelIds $models)
  Set-SwitchyardCodexConfig $token $model (Get-SwitchyardContextWindow $models $model)
}
