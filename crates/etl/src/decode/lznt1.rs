//! LZNT1 decompression (MS-XCA section 2.5, RtlDecompressBuffer's
//! COMPRESSION_FORMAT_LZNT1), for WinSAT's compressed XML events. Chunks of
//! up to 4,096 output bytes, each behind a 16-bit header: size - 1 in bits
//! 0-11, bit 15 set when compressed. A compressed chunk is groups of a flag
//! byte and eight literals or back references; a reference splits its 16
//! bits between offset and length by how far into the chunk it is.

const CHUNK: usize = 4096;

/// Decompress `input` into at most `limit` bytes; `None` when malformed.
pub fn decompress(input: &[u8], limit: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 2 <= input.len() {
        let header = u16::from_le_bytes([*input.get(at)?, *input.get(at + 1)?]);
        at += 2;
        if header == 0 {
            break;
        }
        let size = usize::from(header & 0x0FFF) + 1;
        let data = input.get(at..at + size)?;
        at += size;
        if header & 0x8000 == 0 {
            out.extend_from_slice(data);
        } else {
            chunk(data, &mut out)?;
        }
        if out.len() > limit {
            return None;
        }
    }
    Some(out)
}

/// One compressed chunk, appended to `out`.
fn chunk(data: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let start = out.len();
    let mut i = 0;
    while i < data.len() {
        let flags = *data.get(i)?;
        i += 1;
        for bit in 0..8 {
            if i >= data.len() {
                break;
            }
            if flags & (1 << bit) == 0 {
                out.push(*data.get(i)?);
                i += 1;
                continue;
            }
            let token = u16::from_le_bytes([*data.get(i)?, *data.get(i + 1)?]);
            i += 2;
            let pos = out.len() - start;
            // Offset bits grow with the position: 4 at first, 12 at most.
            let mut offset_bits = 4;
            while offset_bits < 12 && (1usize << offset_bits) < pos {
                offset_bits += 1;
            }
            let length_bits = 16 - offset_bits;
            let offset = usize::from(token >> length_bits) + 1;
            let length = usize::from(token & ((1 << length_bits) - 1)) + 3;
            if offset > pos || pos + length > CHUNK {
                return None;
            }
            // Byte by byte: a reference may overlap what it writes.
            for _ in 0..length {
                let b = *out.get(out.len() - offset)?;
                out.push(b);
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_and_overlapping_reference() {
        // By hand: flags 0b1000 = three literals then a reference at
        // position 3 (4 offset bits): offset 3, length 6 -> (3-1)<<12 | (6-3).
        let chunk = [0x08, b'a', b'b', b'c', 0x03, 0x20];
        let header = 0xB000u16 | (chunk.len() as u16 - 1);
        let mut input = header.to_le_bytes().to_vec();
        input.extend(chunk);
        assert_eq!(decompress(&input, 100).unwrap(), b"abcabcabc");
    }

    #[test]
    fn uncompressed_chunk_and_end_marker() {
        let mut input = (0x3000u16 | 2).to_le_bytes().to_vec();
        input.extend(b"xyz");
        input.extend([0, 0, 0xFF]);
        assert_eq!(decompress(&input, 100).unwrap(), b"xyz");
    }

    #[test]
    fn bad_references_and_limits_fail() {
        // A reference before any output.
        let chunk = [0x01, 0x00, 0x00];
        let mut input = (0xB000u16 | 2).to_le_bytes().to_vec();
        input.extend(chunk);
        assert_eq!(decompress(&input, 100), None);
        // Truncated chunk.
        assert_eq!(decompress(&[0x05, 0xB0, 0x08], 100), None);
        // Output over the limit.
        let mut big = (0x3000u16 | 9).to_le_bytes().to_vec();
        big.extend([0u8; 10]);
        assert_eq!(decompress(&big, 5), None);
    }
}
