import path from 'node:path'

import type { ImageMediaType } from '../../messages/content-blocks.js'

export type FileKind = { kind: 'text' } | { kind: 'image'; mediaType: ImageMediaType } | { kind: 'binary'; why: string }

const IMAGE_EXTENSIONS: Record<string, ImageMediaType> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
}

// Formats whose bytes are never useful as text, refused without sniffing.
const BINARY_EXTENSIONS = new Set(
  (
    '.zip .gz .tgz .bz2 .xz .7z .rar .tar .jar .war .class .exe .dll .so .dylib .o .a .lib .obj .bin ' +
    '.pdf .doc .docx .xls .xlsx .ppt .pptx .odt .mp3 .mp4 .m4a .wav .flac .ogg .avi .mov .mkv .webm ' +
    '.ico .bmp .tiff .tif .psd .woff .woff2 .ttf .otf .eot .sqlite .db .pyc .wasm .node'
  ).split(' '),
)

/** How much of a file's start is looked at for NUL bytes. */
export const SNIFF_BYTES = 8192

function matchesMagic(mediaType: ImageMediaType, head: Buffer): boolean {
  switch (mediaType) {
    case 'image/png':
      return head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    case 'image/jpeg':
      return head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff
    case 'image/gif':
      return head.subarray(0, 4).toString('latin1') === 'GIF8'
    case 'image/webp':
      return head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP'
  }
}

/**
 * Image when both the extension and the magic bytes say so; binary by extension or a NUL byte.
 * `head`: the file's first bytes (up to SNIFF_BYTES), read through the caller's checked descriptor.
 */
export function detectFileKind(filePath: string, head: Buffer): FileKind {
  const extension = path.extname(filePath).toLowerCase()
  const imageType = IMAGE_EXTENSIONS[extension]
  if (imageType !== undefined) {
    if (matchesMagic(imageType, head)) return { kind: 'image', mediaType: imageType }
    return { kind: 'binary', why: `its extension says ${imageType} but its content is not a valid ${imageType} image` }
  }
  if (BINARY_EXTENSIONS.has(extension)) return { kind: 'binary', why: `${extension} files are binary` }
  if (head.subarray(0, SNIFF_BYTES).includes(0)) return { kind: 'binary', why: 'it contains NUL bytes' }
  return { kind: 'text' }
}
