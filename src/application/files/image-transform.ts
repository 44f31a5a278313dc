import { createHash } from 'node:crypto';
import { describeInput, invalidQuery } from '../../domain/query/invalid-query.ts';
import { singleValue } from '../../domain/query/single-value.ts';

/** How a resized image meets a box of `width` × `height` (sharp's and Directus's names). */
export const IMAGE_FITS = ['cover', 'contain', 'inside', 'outside'] as const;
export type ImageFit = (typeof IMAGE_FITS)[number];

/** The formats a variant may be written in. */
export const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'tiff'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** The source types a variant may be made from; SVG is not one: user SVG is never rasterized. */
export const TRANSFORMABLE_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/avif',
  'image/tiff',
  'image/gif',
] as const;

/** What a query or a preset asks for, checked; `format` still `auto` or absent (the original's). */
export type ImageTransformRequest = {
  readonly width?: number;
  readonly height?: number;
  readonly fit?: ImageFit;
  readonly format?: ImageFormat | 'auto';
  readonly quality?: number;
  readonly withoutEnlargement?: boolean;
};

/**
 * One variant, fully decided: the format resolved, and only what changes the output kept (a `fit` without
 * both dimensions, a `quality` of a PNG), so that two requests for the same bytes name the same variant.
 */
export type ImageTransform = {
  readonly width?: number;
  readonly height?: number;
  readonly fit?: ImageFit;
  readonly format: ImageFormat;
  readonly quality?: number;
  readonly withoutEnlargement?: true;
};

export type ImageTransformSettings = {
  /** Largest `width` or `height` a variant may have (`storage.transforms.maxDimension`). */
  readonly maxDimension: number;
  /** Named transforms a client asks for with `key` (`storage.transforms.presets`). */
  readonly presets: ReadonlyMap<string, ImageTransformRequest>;
  /** Whether only the presets are served (`storage.transforms.presetsOnly`): each transform is a stored variant. */
  readonly presetsOnly?: boolean;
};

/**
 * A query's parameters as the HTTP layer hands them over: a string, or an array or object when given twice
 * or in a bracket form (`width[]=10`), which a parameter read here refuses.
 */
export type AssetQuery = Readonly<Record<string, unknown>>;

const TRANSFORM_PARAMETERS = ['width', 'height', 'fit', 'format', 'quality', 'withoutEnlargement'] as const;

const WHOLE_NUMBER = /^[1-9][0-9]{0,8}$/;

/**
 * The transform an `/assets` query asks for (docs/api.md §15), or undefined when it asks for none (the
 * original is served). Every refusal is 400 INVALID_QUERY naming the parameter. `transforms` (Directus's
 * list of arbitrary sharp calls) is refused: decision 0039.
 */
export function parseImageTransform(
  query: AssetQuery,
  settings: ImageTransformSettings,
): ImageTransformRequest | undefined {
  if (query.transforms !== undefined) {
    throw invalidQuery('"transforms" is not supported: use width, height, fit, format, quality or key.', {
      field: 'transforms',
      reason: 'UNSUPPORTED_PARAMETER',
    });
  }
  const key = singleValue(query, 'key');
  const given = TRANSFORM_PARAMETERS.filter((name) => query[name] !== undefined);
  if (key !== undefined) {
    if (given.length > 0) {
      throw invalidQuery(`"key" names a whole transform: it cannot be combined with "${given[0]}".`, {
        field: 'key',
        reason: 'INVALID_VALUE',
      });
    }
    const preset = settings.presets.get(key);
    if (!preset) {
      throw invalidQuery(`"key" ${describeInput(key)} is not a transform preset.`, {
        field: 'key',
        reason: 'INVALID_VALUE',
      });
    }
    return preset;
  }
  if (given.length === 0) return undefined;
  if (settings.presetsOnly) {
    throw invalidQuery(`"${given[0]}" is not served here: ask for a preset with "key".`, {
      field: given[0],
      reason: 'UNSUPPORTED_PARAMETER',
    });
  }
  return {
    width: dimension(query, 'width', settings.maxDimension),
    height: dimension(query, 'height', settings.maxDimension),
    fit: oneOf(query, 'fit', IMAGE_FITS),
    format: oneOf(query, 'format', [...IMAGE_FORMATS, 'auto'] as const),
    quality: quality(query),
    withoutEnlargement: flag(query, 'withoutEnlargement'),
  };
}

/**
 * Decides the variant: `format=auto` takes AVIF when `accept` (the request's `Accept`) names it, else
 * WebP when it names that, else the original's format, as does a request without `format`; an original
 * in no output format (GIF) becomes PNG. Only explicit media types count, not `image/*` or `*\/*`: a
 * browser that decodes AVIF says so.
 */
export function resolveImageTransform(
  request: ImageTransformRequest,
  sourceType: string,
  accept: string | undefined,
): ImageTransform {
  const format =
    request.format === 'auto'
      ? ((['avif', 'webp'] as const).find((candidate) => accepts(accept, `image/${candidate}`)) ??
        originalFormat(sourceType))
      : (request.format ?? originalFormat(sourceType));
  const resized = request.width !== undefined || request.height !== undefined;
  const boxed = request.width !== undefined && request.height !== undefined;
  return {
    ...(request.width !== undefined && { width: request.width }),
    ...(request.height !== undefined && { height: request.height }),
    ...(boxed && { fit: request.fit ?? 'cover' }),
    format,
    ...(request.quality !== undefined && format !== 'png' && { quality: request.quality }),
    ...(resized && request.withoutEnlargement && { withoutEnlargement: true }),
  };
}

/** Whether the answer depends on the request's `Accept` (so the HTTP layer sends `Vary: Accept`). */
export function variesWithAccept(request: ImageTransformRequest): boolean {
  return request.format === 'auto';
}

/**
 * The name of a variant: a digest of the transform and of the version of the original's bytes, so that a
 * file whose bytes change never gets its old variants served.
 */
export function variantDigest(transform: ImageTransform, sourceVersion: string): string {
  const canonical = JSON.stringify([
    sourceVersion,
    transform.width ?? null,
    transform.height ?? null,
    transform.fit ?? null,
    transform.format,
    transform.quality ?? null,
    transform.withoutEnlargement ?? false,
  ]);
  return createHash('sha256').update(canonical).digest('base64url');
}

export type Size = { readonly width: number; readonly height: number };

/**
 * The largest size the variant of an image of `source` size (as displayed, EXIF orientation applied) can
 * have: a single dimension keeps the aspect ratio, `inside` fits in the box, `outside` covers it,
 * `cover`/`contain` are the box, and `withoutEnlargement` never scales up. An upper bound, so that an
 * output over the limit is refused before any pixel is decoded.
 */
export function variantSize(source: Size, transform: ImageTransform): Size {
  const { width, height, fit } = transform;
  if (width === undefined && height === undefined) return source;
  if (width !== undefined && height !== undefined && (fit === 'cover' || fit === 'contain')) {
    return { width, height };
  }
  const scales = [
    ...(width === undefined ? [] : [width / source.width]),
    ...(height === undefined ? [] : [height / source.height]),
  ];
  const wanted = fit === 'outside' ? Math.max(...scales) : Math.min(...scales);
  const scale = transform.withoutEnlargement ? Math.min(wanted, 1) : wanted;
  return { width: Math.ceil(source.width * scale), height: Math.ceil(source.height * scale) };
}

/** The media type of a format. */
export function imageType(format: ImageFormat): string {
  return `image/${format}`;
}

export function isTransformable(type: string | null | undefined): boolean {
  return (TRANSFORMABLE_TYPES as readonly string[]).includes(type ?? '');
}

function originalFormat(sourceType: string): ImageFormat {
  const subtype = sourceType.replace(/^image\//, '');
  return (IMAGE_FORMATS as readonly string[]).includes(subtype) ? (subtype as ImageFormat) : 'png';
}

/** Whether an `Accept` header names `type` with a non-zero quality. */
function accepts(accept: string | undefined, type: string): boolean {
  return (accept ?? '').split(',').some((entry) => {
    const [range, ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    if (range !== type) return false;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function dimension(query: AssetQuery, name: 'width' | 'height', max: number): number | undefined {
  const raw = singleValue(query, name);
  if (raw === undefined) return undefined;
  const value = WHOLE_NUMBER.test(raw) ? Number(raw) : Number.NaN;
  if (!(value <= max)) {
    throw invalidQuery(`"${name}" must be a whole number from 1 to ${max}, not ${describeInput(raw)}.`, {
      field: name,
      reason: 'INVALID_VALUE',
    });
  }
  return value;
}

function quality(query: AssetQuery): number | undefined {
  const raw = singleValue(query, 'quality');
  if (raw === undefined) return undefined;
  const value = WHOLE_NUMBER.test(raw) ? Number(raw) : Number.NaN;
  if (!(value <= 100)) {
    throw invalidQuery(`"quality" must be a whole number from 1 to 100, not ${describeInput(raw)}.`, {
      field: 'quality',
      reason: 'INVALID_VALUE',
    });
  }
  return value;
}

function oneOf<T extends string>(query: AssetQuery, name: string, values: readonly T[]): T | undefined {
  const raw = singleValue(query, name);
  if (raw === undefined) return undefined;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  throw invalidQuery(`"${name}" must be one of ${values.join(', ')}, not ${describeInput(raw)}.`, {
    field: name,
    reason: 'INVALID_VALUE',
  });
}

function flag(query: AssetQuery, name: string): boolean | undefined {
  const raw = singleValue(query, name);
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw invalidQuery(`"${name}" must be true or false, not ${describeInput(raw)}.`, {
    field: name,
    reason: 'INVALID_VALUE',
  });
}
