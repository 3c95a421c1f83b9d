# Switchyard client installer, served by the gateway at /install/ (docs/installers.md).
#
#   irm <gateway>/install/<client>.ps1 | iex
#   or save it and run: powershell -ExecutionPolicy Bypass -File install.ps1
#
# The token is read with Read-Host -AsSecureString (hidden); when standard input is redirected
# its first line is read instead. It is never taken from the URL or the command line
# (docs/api.md) and never printed. The served script runs inside `& { }` so that `irm | iex` leaves
# no functions or preference changes behind in the caller's session.

$ErrorActionPreference = 'Stop'
$SwitchyardBaseUrl = '@@SWITCHYARD_BASE_URL@@'

function Stop-Switchyard([string]$Message) {
  throw [System.InvalidOperationException]::new("switchyard: $Message")
}

function Test-SwitchyardWindows {
  # Windows PowerShell 5.1 has no $IsWindows and runs only on Windows.
  $variable = Get-Variable -Name IsWindows -ErrorAction SilentlyContinue
  if ($null -eq $variable) { return $true }
  return [bool]$variable.Value
}

function Read-SwitchyardToken {
  if ([Console]::IsInputRedirected) {
    $line = [Console]::In.ReadLine()
  } else {
    $secure = Read-Host -Prompt 'Switchyard token (input hidden)' -AsSecureString
    $pointer = [Runtime.InteropServices.Marshal]::SecureStringToBSTR($secure)
    try {
      $line = [Runtime.InteropServices.Marshal]::PtrToStringBSTR($pointer)
    } finally {
      [Runtime.InteropServices.Marshal]::ZeroFreeBSTR($pointer)
    }
  }
  if ($null -eq $line) { $line = '' }
  $token = $line.Trim()
  if ($token -eq '') {
    Stop-Switchyard 'No token was entered. Create one with your gateway operator and run this script again.'
  }
  if (-not $token.StartsWith('sy_')) {
    Stop-Switchyard 'That is not a Switchyard client token (they start with "sy_"). Provider keys are not accepted.'
  }
  # The token is written into JSON, TOML and an HTTP header: only its own alphabet may pass.
  if ($token -cnotmatch '^sy_[0-9A-Za-z]+$') {
    Stop-Switchyard 'The token contains characters a Switchyard token never has.'
  }
  return $token
}

# GET {base}/v1/models with the token in a header; returns the listed model objects.
function Get-SwitchyardModelList([string]$Token) {
  try {
    [Net.ServicePointManager]::SecurityProtocol =
      [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
  } catch {
    # PowerShell 7 negotiates TLS itself.
  }
  $headers = @{ Authorization = "Bearer $Token"; Accept = 'application/json' }
  try {
    $list = Invoke-RestMethod -Method Get -Uri "$SwitchyardBaseUrl/v1/models" -Headers $headers -UseBasicParsing
  } catch {
    $status = 0
    $response = $_.Exception.Response
    if ($null -ne $response) { $status = [int]$response.StatusCode }
    if ($status -eq 401) {
      Stop-Switchyard 'The gateway refused this token (HTTP 401): it is wrong, disabled or expired. Nothing was changed.'
    }
    if ($status -ne 0) {
      Stop-Switchyard "The gateway answered HTTP $status to GET $SwitchyardBaseUrl/v1/models. Nothing was changed."
    }
    Stop-Switchyard "Cannot reach $SwitchyardBaseUrl ($($_.Exception.Message))."
  }
  return , @($list.data)
}

# The listed ids that are safe to write into the client configuration.
function Get-SwitchyardModelIds([object[]]$Models) {
  $ids = New-Object System.Collections.Generic.List[string]
  foreach ($entry in $Models) {
    $id = $entry.id
    if ($id -is [string] -and $id -cmatch '^[A-Za-z0-9._:@+/-]+$') { $ids.Add($id) }
  }
  return , $ids.ToArray()
}

# SWITCHYARD_MODEL when given (it must be listed), otherwise a choice from the list in an
# interactive console, otherwise the first listed model; '' when the list is empty.
function Select-SwitchyardModel([string[]]$Ids) {
  $wanted = $env:SWITCHYARD_MODEL
  if ($wanted) {
    if ($Ids -ccontains $wanted) { return $wanted }
    Stop-Switchyard "The model ""$wanted"" is not in the gateway's model list. Nothing was changed."
  }
  if ($Ids.Count -eq 0) {
    Write-Host 'The gateway lists no models yet; the model is left unset.'
    return ''
  }
  if ($Ids.Count -gt 1 -and -not [Console]::IsInputRedirected) {
    Write-Host 'Models on this gateway:'
    for ($index = 0; $index -lt $Ids.Count; $index++) {
      Write-Host ('  {0}) {1}' -f ($index + 1), $Ids[$index])
    }
    $choice = Read-Host -Prompt 'Model number [1]'
    if ($choice -ne '') {
      $number = 0
      if (-not [int]::TryParse($choice, [ref]$number) -or $number -lt 1 -or $number -gt $Ids.Count) {
        Stop-Switchyard "There is no model number $choice."
      }
      return $Ids[$number - 1]
    }
  }
  return $Ids[0]
}

# Only the current user may read the file: an explicit ACL on Windows, mode 600 elsewhere.
function Protect-SwitchyardFile([string]$Path) {
  if (Test-SwitchyardWindows) {
    $acl = New-Object System.Security.AccessControl.FileSecurity
    $acl.SetAccessRuleProtection($true, $false)
    $user = [System.Security.Principal.WindowsIdentity]::GetCurrent().User
    $rule = New-Object System.Security.AccessControl.FileSystemAccessRule($user, 'FullControl', 'Allow')
    $acl.AddAccessRule($rule)
    Set-Acl -LiteralPath $Path -AclObject $acl
  } else {
    & chmod 600 $Path
  }
}

# Copies an existing file aside (private: it may hold an earlier token); returns its path or ''.
function Backup-SwitchyardFile([string]$Path) {
  if (-not (Test-Path -LiteralPath $Path)) { return '' }
  $backup = "$Path.switchyard-backup-" + (Get-Date -Format 'yyyyMMdd-HHmmss')
  Copy-Item -LiteralPath $Path -Destination $backup -Force
  Protect-SwitchyardFile $backup
  return $backup
}

# Writes UTF-8 without a byte order mark (JSON readers reject one) into a file that is made
# private before the content arrives, then moves it over the target.
function Write-SwitchyardPrivateFile([string]$Path, [string]$Text) {
  $temporary = "$Path.switchyard-tmp"
  New-Item -ItemType File -Path $temporary -Force | Out-Null
  Protect-SwitchyardFile $temporary
  [System.IO.File]::WriteAllText($temporary, $Text, (New-Object System.Text.UTF8Encoding $false))
  Move-Item -LiteralPath $temporary -Destination $Path -Force
}

function Write-SwitchyardReport([string]$Path, [string]$Backup) {
  Write-Host "  wrote   $Path (readable only by you)"
  if ($Backup) { Write-Host "  backup  $Backup" }
}

function Invoke-SwitchyardInstaller([scriptblock]$Install) {
  try {
    & $Install
  } catch {
    Write-Host $_.Exception.Message -ForegroundColor Red
    # A saved script run with -File reports failure; under `irm | iex` exit would close the shell.
    if ($PSCommandPath) { exit 1 }
  }
}
