import type {
  UnfinishedUpload,
  UnfinishedUploads,
  UploadOpening,
} from '../../../application/ports/unfinished-uploads.ts';

/** The unfinished uploads of the in-memory backend, which only the instances of one process share. */
export class InMemoryUnfinishedUploads implements UnfinishedUploads {
  private readonly uploads = new Map<string, UnfinishedUpload>();

  async open(upload: UnfinishedUpload, max: number, since: Date): Promise<UploadOpening> {
    const counted = [...this.uploads.values()].filter(
      ({ owner, createdAt }) => owner === upload.owner && createdAt > since,
    );
    if (counted.length >= max) {
      const oldest = Math.min(...counted.map(({ createdAt }) => createdAt.getTime()));
      return { opened: false, oldest: new Date(oldest) };
    }
    this.uploads.set(upload.id, upload);
    return { opened: true };
  }

  async close(id: string): Promise<void> {
    this.uploads.delete(id);
  }
}
