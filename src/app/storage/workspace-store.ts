/** What the bot keeps about a workspace; the key only ever encrypted. */
export interface WorkspaceConnection {
  teamId: string;
  encryptedApiKey: string;
  serviceUrl: string | null;
  connectedBy: string;
  connectedAt: string;
}

/** A person's own service key (issue 13 item 2). */
export interface PersonalKey {
  teamId: string;
  userId: string;
  encryptedApiKey: string;
  serviceUrl: string | null;
  connectedAt: Date;
}

export interface WorkspaceSettings {
  teamId: string;
  personalKeysForWrites: boolean;
}

/** How many rows removeWorkspace removed. */
export interface RemovedWorkspace {
  installations: number;
  connections: number;
  personalKeys: number;
  subscriptions: number;
}

/** Workspaces: the workspace's connection (its service key), people's own keys and the settings. */
export interface WorkspaceStore {
  getConnection(teamId: string): Promise<WorkspaceConnection | null>;
  saveConnection(connection: WorkspaceConnection): Promise<void>;
  removeConnection(teamId: string): Promise<boolean>;
  /** Every stored connection (the start-up check that each key can still be decrypted). */
  listConnections(): Promise<WorkspaceConnection[]>;
  savePersonalKey(key: PersonalKey): Promise<void>;
  getPersonalKey(teamId: string, userId: string): Promise<PersonalKey | null>;
  removePersonalKey(teamId: string, userId: string): Promise<boolean>;
  /** The workspace's settings; the defaults (false) when never saved. */
  getWorkspaceSettings(teamId: string): Promise<WorkspaceSettings>;
  saveWorkspaceSettings(settings: WorkspaceSettings): Promise<void>;
  /**
   * Uninstall or tokens revoked: one transaction removing the team's (non-org-wide) installation,
   * its workspace connection, personal keys, settings, subscriptions with their deliveries and
   * delivered items, comment authors and pipeline messages. Only the markers of channels already
   * greeted stay (greeted once, also after a reinstall). Another team's data is untouched.
   */
  removeWorkspace(teamId: string): Promise<RemovedWorkspace>;
}
