export type RoleProps = {
  id: string;
  name: string;
  description: string | null;
  adminAccess: boolean;
};

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
