/**
 * Width and height from the header of a PNG (IHDR) or baseline/progressive JPEG (SOFn marker), so
 * a frame taken from a URL or a compressed topic is recorded with its size. Never throws: bytes
 * that are neither give undefined.
 */
export function imageSize(
  data: Uint8Array,
): { mime: 'image/png' | 'image/jpeg'; width: number; height: number } | undefined {
  const u16 = (i: number): number => ((data[i] ?? 0) << 8) | (data[i + 1] ?? 0);
  const u32 = (i: number): number => ((u16(i) << 16) >>> 0) + u16(i + 2);
  if (
    data.length >= 24 &&
    data[0] === 0x89 &&
    data[1] === 0x50 &&
    data[2] === 0x4e &&
    data[3] === 0x47 &&
    String.fromCharCode(...data.subarray(12, 16)) === 'IHDR'
  ) {
    return { mime: 'image/png', width: u32(16), height: u32(20) };
  }
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < data.length) {
    if (data[i] !== 0xff) return undefined;
    const marker = data[i + 1] ?? 0;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const len = u16(i + 2);
    if (len < 2) return undefined;
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { mime: 'image/jpeg', width: u16(i + 7), height: u16(i + 5) };
    }
    i += 2 + len;
  }
  return undefined;
}
