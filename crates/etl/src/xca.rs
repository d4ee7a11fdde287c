//! MS-XCA "Plain LZ77" decompression (COMPRESSION_FORMAT_XPRESS), the format
//! of compressed ETL buffers. No crate on crates.io decodes it, so this is our
//! own, written from the [MS-XCA] 2.4 pseudo-code with a literal-run fast path.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XcaError {
    /// Offset in the compressed input where decoding failed.
    pub input_offset: usize,
    pub message: &'static str,
}

impl fmt::Display for XcaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (compressed byte {})",
            self.message, self.input_offset
        )
    }
}

fn err(input_offset: usize, message: &'static str) -> XcaError {
    XcaError {
        input_offset,
        message,
    }
}

/// Decompress `input` into `out`, which must be sized to the expected output
/// length. Returns the number of bytes produced; decoding stops when `out` is
/// full or the input ends.
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, XcaError> {
    let mut ip = 0usize;
    let mut op = 0usize;
    let mut flags: u32 = 0;
    let mut flag_count: u32 = 0;
    let mut half_byte_pos: Option<usize> = None;
    let rd8 = |p: usize| {
        input
            .get(p)
            .copied()
            .ok_or_else(|| err(p, "truncated match length"))
    };

    while op < out.len() {
        if flag_count == 0 {
            let Some(b) = input.get(ip..ip + 4) else {
                // A trailing partial flag word carries nothing more.
                return Ok(op);
            };
            flags = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            flag_count = 32;
            ip += 4;
        }
        // Bits are consumed from the most significant end.
        let pending = flags << (32 - flag_count);
        let literals = pending.leading_zeros().min(flag_count) as usize;
        if literals > 0 {
            let n = literals.min(out.len() - op).min(input.len() - ip);
            if n == 0 {
                return Ok(op);
            }
            out[op..op + n].copy_from_slice(&input[ip..ip + n]);
            op += n;
            ip += n;
            flag_count -= n as u32;
            continue;
        }
        flag_count -= 1;
        if ip >= input.len() {
            return Ok(op);
        }
        let Some(m) = input.get(ip..ip + 2) else {
            return Err(err(ip, "truncated match token"));
        };
        let token = u16::from_le_bytes([m[0], m[1]]) as usize;
        ip += 2;
        let offset = (token >> 3) + 1;
        let mut len = token & 7;
        if len == 7 {
            len = match half_byte_pos.take() {
                None => {
                    half_byte_pos = Some(ip);
                    let v = rd8(ip)? as usize & 0x0f;
                    ip += 1;
                    v
                }
                Some(p) => rd8(p)? as usize >> 4,
            };
            if len == 15 {
                len = rd8(ip)? as usize;
                ip += 1;
                if len == 255 {
                    let Some(w) = input.get(ip..ip + 2) else {
                        return Err(err(ip, "truncated match length"));
                    };
                    len = u16::from_le_bytes([w[0], w[1]]) as usize;
                    ip += 2;
                    if len == 0 {
                        let Some(w) = input.get(ip..ip + 4) else {
                            return Err(err(ip, "truncated match length"));
                        };
                        len = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize;
                        ip += 4;
                    }
                    if len < 15 + 7 {
                        return Err(err(ip, "invalid match length"));
                    }
                    len -= 15 + 7;
                }
                len += 15;
            }
            len += 7;
        }
        len += 3;
        if offset > op {
            return Err(err(ip, "match reaches before the start of the output"));
        }
        if len > out.len() - op {
            return Err(err(ip, "match runs past the expected output size"));
        }
        let src = op - offset;
        if offset >= len {
            out.copy_within(src..src + len, op);
        } else {
            // Overlapping copy repeats the last `offset` bytes.
            for i in 0..len {
                out[op + i] = out[src + i];
            }
        }
        op += len;
    }
    Ok(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8], n: usize) -> Result<Vec<u8>, XcaError> {
        let mut out = vec![0u8; n];
        let got = decompress(input, &mut out)?;
        out.truncate(got);
        Ok(out)
    }

    #[test]
    fn literals_then_end_marker() {
        // Unused flag bits are 1s; a match bit with no input left ends the stream.
        assert_eq!(
            run(&[0xff, 0xff, 0xff, 0x1f, b'a', b'b', b'c'], 3).unwrap(),
            b"abc"
        );
        assert_eq!(
            run(&[0xff, 0xff, 0xff, 0x1f, b'a', b'b', b'c'], 10).unwrap(),
            b"abc"
        );
    }

    #[test]
    fn overlapping_and_long_matches() {
        // "abc" then match(offset 3, length 6): token ((3-1)<<3)|(6-3) = 0x13.
        let input = [0xff, 0xff, 0xff, 0x1f, b'a', b'b', b'c', 0x13, 0x00];
        assert_eq!(run(&input, 9).unwrap(), b"abcabcabc");
        // Length 7 escape with nibble 15 and extra byte 10: 3+7+15+10 = 35.
        let input = [0xff, 0xff, 0xff, 0x7f, b'z', 0x07, 0x00, 0x0f, 10];
        assert_eq!(run(&input, 36).unwrap(), vec![b'z'; 36]);
    }

    #[test]
    fn bad_offsets_are_errors_not_panics() {
        // flag word says "match" first, offset 1 with empty output.
        let input = [0, 0, 0, 0x80, 0x00, 0x00];
        assert!(run(&input, 10).is_err());
        assert!(run(&[0xff, 0xff, 0xff, 0xff, 0x07], 10).is_err());
    }
}
