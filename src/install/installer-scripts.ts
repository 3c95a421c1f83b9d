import { readFileSync } from 'node:fs';

/** The scripts served under /install/ (docs/installers.md) and the files each is assembled from. */
export const installerScripts = {
  'claude-code.sh': {
    shell: 'posix',
    parts: ['posix-installer-common.sh', 'claude-code-installer.sh'],
  },
  'codex.sh': { shell: 'posix', parts: ['posix-installer-common.sh', 'codex-installer.sh'] },
  'claude-code.ps1': {
    shell: 'powershell',
    parts: ['powershell-installer-common.ps1', 'claude-code-installer.ps1'],
  },
  'codex.ps1': {
    shell: 'powershell',
    parts: ['powershell-installer-common.ps1', 'codex-installer.ps1'],
  },
} as const;

export type InstallerName = keyof typeof installerScripts;

const baseUrlPlaceholder = '@@SWITCHYARD_BASE_URL@@';

/** A script with its base URL still open; read once at start-up. */
export interface InstallerTemplate {
  name: InstallerName;
  render(baseUrl: string): string;
}

function readPart(file: string): string {
  return readFileSync(new URL(`./scripts/${file}`, import.meta.url), 'utf8');
}

export function loadInstallerTemplate(name: InstallerName): InstallerTemplate {
  const script = installerScripts[name];
  const joined = script.parts.map(readPart).join('\n');
  // PowerShell: a child scope, so `irm | iex` leaves nothing behind in the caller's session.
  const text = script.shell === 'powershell' ? `& {\n${joined}\n}\n` : joined;
  if (text.split(baseUrlPlaceholder).length !== 2) {
    throw new Error(`Installer ${name} must name the base URL placeholder exactly once.`);
  }
  return {
    name,
    // The caller passes a URL checked by normalizeInstallerBaseUrl (no quote can reach here).
    render: (baseUrl) => text.replace(baseUrlPlaceholder, () => baseUrl),
  };
}
