export const USER_STATUSES = ['active', 'suspended'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export type UserProps = {
  id: string;
  email: string;
  passwordHash: string;
  roleId: string | null;
  status: UserStatus;
  firstName: string | null;
  lastName: string | null;
  /** SHA-256 digest of the static token, never the token itself. */
  tokenDigest: string | null;
  createdAt: Date;
};

/** The members a change of a user sets; those left out keep what is stored, whoever changed them meanwhile. */
export type UserChanges = Partial<Omit<UserProps, 'id' | 'createdAt'>>;

export class User {
  id: string;
  email: string;
  passwordHash: string;
  roleId: string | null;
  status: UserStatus;
  firstName: string | null;
  lastName: string | null;
  tokenDigest: string | null;
  createdAt: Date;

  constructor(props: UserProps) {
    this.id = props.id;
    this.email = props.email;
    this.passwordHash = props.passwordHash;
    this.roleId = props.roleId;
    this.status = props.status;
    this.firstName = props.firstName;
    this.lastName = props.lastName;
    this.tokenDigest = props.tokenDigest;
    this.createdAt = props.createdAt;
  }

  get isActive(): boolean {
    return this.status === 'active';
  }
}
