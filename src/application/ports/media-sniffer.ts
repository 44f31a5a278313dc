/** Tells a file's media type from its first bytes (their signature), whatever its uploader declared. */
export interface MediaSniffer {
  /** How many leading bytes `sniff` needs; fewer are given when the file is shorter. */
  readonly windowBytes: number;
  /** The media type the bytes begin like, or undefined when they match no signature (plain text, say). */
  sniff(head: Uint8Array): Promise<string | undefined>;
  /** Whether `sniff` recognises this type by its signature: bytes declared as it that `sniff` did not recognise are not of it. */
  recognises(type: string): Promise<boolean>;
}
