
# --- Claude Code -------------------------------------------------------------------------------
# Claude Code reads `env` from its user settings file and applies it at start-up; a bearer token
# in ANTHROPIC_AUTH_TOKEN needs no "use this API key?" confirmation (docs/installers.md).

function Test-SwitchyardJsonObject($Value) {
  return $null -ne $Value -and $Value.GetType().FullName -eq 'System.Management.Automation.PSCustomObject'
}

function Set-SwitchyardClaudeSettings([string]$Token, [string]$Model) {
  $configDirectory = $env:CLAUDE_CONFIG_DIR
  if (-not $configDirectory) { $configDirectory = Join-Path $HOME '.claude' }
  $settingsPath = Join-Path $configDirectory 'settings.json'
  New-Item -ItemType Directory -Force -Path $configDirectory | Out-Null

  $settings = $null
  $replacedExisting = $false
  if (Test-Path -LiteralPath $settingsPath) {
    $text = [System.IO.File]::ReadAllText($settingsPath)
    if ($text.Trim() -ne '') {
      try { $settings = $text | ConvertFrom-Json } catch { $settings = $null }
      $environmentProperty = $null
      if (Test-SwitchyardJsonObject $settings) { $environmentProperty = $settings.PSObject.Properties['env'] }
      if (-not (Test-SwitchyardJsonObject $settings) -or
        ($null -ne $environmentProperty -and -not (Test-SwitchyardJsonObject $environmentProperty.Value))) {
        $settings = $null
        $replacedExisting = $true
      }
    }
  }
  if ($null -eq $settings) { $settings = New-Object PSObject }
  $environmentProperty = $settings.PSObject.Properties['env']
  if ($null -eq $environmentProperty) {
    $settings | Add-Member -NotePropertyName 'env' -NotePropertyValue (New-Object PSObject)
  }
  $environment = $settings.env
  # An API key would be sent as x-api-key and win over the gateway token.
  $environment.PSObject.Properties.Remove('ANTHROPIC_API_KEY')
  $environment | Add-Member -NotePropertyName 'ANTHROPIC_BASE_URL' -NotePropertyValue $SwitchyardBaseUrl -Force
  $environment | Add-Member -NotePropertyName 'ANTHROPIC_AUTH_TOKEN' -NotePropertyValue $Token -Force
  if ($Model) {
    $environment | Add-Member -NotePropertyName 'ANTHROPIC_MODEL' -NotePropertyValue $Model -Force
    $environment | Add-Member -NotePropertyName 'ANTHROPIC_DEFAULT_HAIKU_MODEL' -NotePropertyValue $Model -Force
  }

  $backup = Backup-SwitchyardFile $settingsPath
  Write-SwitchyardPrivateFile $settingsPath (($settings | ConvertTo-Json -Depth 100) + "`n")

  $modelNote = ''
  if ($Model) { $modelNote = " with model $Model" }
  Write-Host "Claude Code now uses the Switchyard gateway at $SwitchyardBaseUrl$modelNote."
  Write-SwitchyardReport $settingsPath $backup
  if ($replacedExisting) {
    Write-Host '  The previous settings were not a JSON object; copy what you need back from the backup.'
  }
  if ($env:ANTHROPIC_API_KEY) {
    Write-Host '  Note: ANTHROPIC_API_KEY is set in this session; remove it, or Claude Code sends that key instead.'
  }
  Write-Host 'Start it with: claude'
}

Invoke-SwitchyardInstaller {
  Write-Host "Switchyard installer for Claude Code (gateway: $SwitchyardBaseUrl)"
  $token = Read-SwitchyardToken
  $model = Select-SwitchyardModel (Get-SwitchyardModelIds (Get-SwitchyardModelList $token))
  Set-SwitchyardClaudeSettings $token $model
}
