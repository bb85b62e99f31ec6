/** A Slack installation as stored; the secret (Bolt's Installation object as JSON) encrypted by the caller with KeyCipher. */
export interface StoredInstallation {
  /** null for an org-wide (Enterprise Grid) install. */
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  encryptedInstallation: string;
  installedAt: Date;
}

/** Which installation a request needs, as Bolt asks for it. */
export interface InstallationQuery {
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
}

/** Installations from the "Add to Slack" flow (the OAuth state is a kept request: KeptValueStore). */
export interface InstallationStore {
  /** Stores an installation, replacing the one of the same workspace (or the same org-wide install). */
  saveInstallation(installation: StoredInstallation): Promise<void>;
  /**
   * The installation a request needs: with `isEnterpriseInstall` the enterprise's org-wide one
   * (whichever of its workspaces asks), otherwise the workspace's own, falling back to its
   * enterprise's org-wide one (Bolt's semantics).
   */
  findInstallation(query: InstallationQuery): Promise<StoredInstallation | null>;
  /** Removes the installation the query names (no fallback); true when it existed. */
  deleteInstallation(query: InstallationQuery): Promise<boolean>;
  listInstallations(): Promise<StoredInstallation[]>;
}
