/**
 * The bytes read before the header is looked at: every format's magic number, and the whole header of
 * nearly every image (a JPEG's dimensions follow its EXIF, which is rarely longer). An image whose header
 * lies further in is read whole first, as libvips would read it anyway.
 */
export const HEAD_BYTES = 64 * 1024;
