export type RoleProps = {
  id: string;
  name: string;
  description: string | null;
  adminAccess: boolean;
};

/** The members a change of a role sets; those left out keep what is stored, whoever changed them meanwhile. */
export type RoleChanges = Partial<Omit<RoleProps, 'id'>>;

/** A role groups permissions; `adminAccess` bypasses every permission check. */
export class Role {
  id: string;
  name: string;
  description: string | null;
  adminAccess: boolean;

  constructor(props: RoleProps) {
    this.id = props.id;
    this.name = props.name;
    this.description = props.description;
    this.adminAccess = props.adminAccess;
  }
}
