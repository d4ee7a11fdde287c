//! MS-XCA "Plain LZ77" decompression (COMPRESSION_FORMAT_XPRESS), the format
//! of compressed ETL buffers, written from the [MS-XCA] 2.4 pseudo-code with a
//! literal-run fast path. Two crates decode it too (rust-lzxpress, xpress_rs);
//! ours is 2.4x faster on the real traces, agrees with xpress_rs where
//! rust-lzxpress does not, and never panics where xpress_rs does
//! (docs/LIBRARIES.md, `cargo run --release -p etl --example bench_xca`).

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
            // Fast path: one fixed-size 32-byte copy (n <= 32) when both sides
            // have room; bytes past `n` are overwritten by what follows.
            match (input.get(ip..ip + 32), out.get_mut(op..op + 32)) {
                (Some(src), Some(dst)) => dst.copy_from_slice(src),
                _ => out[op..op + n].copy_from_slice(&input[ip..ip + n]),
            }
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
        copy_match(out, op, offset, len);
        op += len;
    }
    Ok(op)
}

/// Copy `len` bytes from `offset` bytes back to `op`. The caller has checked
/// `offset <= op` and `op + len <= out.len()`.
#[inline(always)]
fn copy_match(out: &mut [u8], op: usize, offset: usize, len: usize) {
    let src = op - offset;
    let room = out.len() - op;
    if offset >= 16 && len + 16 <= room {
        // Fixed 16-byte chunks: each chunk's source ends before its
        // destination starts, so overlap across chunks is fine; the last
        // chunk may write up to 15 bytes past the match (overwritten later).
        let mut i = 0;
        while i < len {
            let (head, tail) = out.split_at_mut(op + i);
            tail[..16].copy_from_slice(&head[src + i..src + i + 16]);
            i += 16;
        }
    } else if offset >= 8 && len + 8 <= room {
        // Same with 8-byte chunks (offsets 8..15 are common in ETW data:
        // repeated fields of fixed-size records).
        let mut i = 0;
        while i < len {
            let (head, tail) = out.split_at_mut(op + i);
            tail[..8].copy_from_slice(&head[src + i..src + i + 8]);
            i += 8;
        }
    } else if offset >= len {
        out.copy_within(src..src + len, op);
    } else if offset == 1 {
        let b = out[src];
        out[op..op + len].fill(b);
    } else {
        // Overlapping copy repeats the last `offset` bytes.
        for i in 0..len {
            out[op + i] = out[src + i];
        }
    }
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

    /// Straightforward MS-XCA decoder (byte-at-a-time copies), the reference
    /// the fast paths of `decompress` are checked against.
    fn reference(input: &[u8], out: &mut [u8]) -> Option<usize> {
        let (mut ip, mut op, mut flags, mut count) = (0usize, 0usize, 0u32, 0u32);
        let mut nibble: Option<usize> = None;
        while op < out.len() {
            if count == 0 {
                // Input ending at a flag word or inside literals is a clean end.
                let Some(b) = input.get(ip..ip + 4) else {
                    return Some(op);
                };
                flags = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                count = 32;
                ip += 4;
            }
            count -= 1;
            if flags & (1 << count) == 0 {
                let Some(&b) = input.get(ip) else {
                    return Some(op);
                };
                out[op] = b;
                op += 1;
                ip += 1;
                continue;
            }
            if ip >= input.len() {
                return Some(op);
            }
            let t = u16::from_le_bytes([input[ip], *input.get(ip + 1)?]) as usize;
            ip += 2;
            let mut len = t & 7;
            if len == 7 {
                len = match nibble.take() {
                    None => {
                        nibble = Some(ip);
                        ip += 1;
                        (*input.get(ip - 1)? & 15) as usize
                    }
                    Some(p) => (input[p] >> 4) as usize,
                };
                if len == 15 {
                    len = *input.get(ip)? as usize;
                    ip += 1;
                    if len == 255 {
                        let w = input.get(ip..ip + 2)?;
                        len = u16::from_le_bytes([w[0], w[1]]) as usize;
                        ip += 2;
                        if len == 0 {
                            let w = input.get(ip..ip + 4)?;
                            len = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize;
                            ip += 4;
                        }
                        len = len.checked_sub(22)?;
                    }
                    len += 15;
                }
                len += 7;
            }
            len += 3;
            let off = (t >> 3) + 1;
            if off > op || len > out.len() - op {
                return None;
            }
            for k in 0..len {
                out[op + k] = out[op - off + k];
            }
            op += len;
        }
        Some(op)
    }

    /// A valid random stream (literals and matches of every length
    /// encoding, small offsets favoured), built token by token.
    fn random_stream(next: &mut impl FnMut() -> u64, symbols: usize) -> Vec<u8> {
        let mut s = Vec::new();
        let (mut op, mut flag_pos, mut flags, mut count) = (0usize, 0usize, 0u32, 0u32);
        let mut nibble: Option<usize> = None;
        s.extend_from_slice(&[0; 4]);
        for _ in 0..symbols {
            let is_match = op > 0 && next() & 1 == 0;
            if is_match {
                let off = 1 + (next() as usize % op.min(if next() & 1 == 0 { 20 } else { 8192 }));
                let len = 3 + match next() % 4 {
                    0 => next() % 7,
                    1 => next() % 30,
                    2 => next() % 400,
                    _ => next() % 20_000,
                } as usize;
                let ml = len - 3;
                let tok = ((off - 1) << 3) as u16 | ml.min(7) as u16;
                s.extend_from_slice(&tok.to_le_bytes());
                if ml >= 7 {
                    let rest = ml - 7;
                    let nib = rest.min(15) as u8;
                    match nibble.take() {
                        None => {
                            nibble = Some(s.len());
                            s.push(nib);
                        }
                        Some(p) => s[p] |= nib << 4,
                    }
                    if rest >= 15 {
                        if rest - 15 < 255 {
                            s.push((rest - 15) as u8);
                        } else if ml <= 0xFFFF {
                            s.push(255);
                            s.extend_from_slice(&(ml as u16).to_le_bytes());
                        } else {
                            s.push(255);
                            s.extend_from_slice(&[0, 0]);
                            s.extend_from_slice(&(ml as u32).to_le_bytes());
                        }
                    }
                }
                op += len;
            } else {
                s.push(next() as u8);
                op += 1;
            }
            flags = flags << 1 | u32::from(is_match);
            count += 1;
            if count == 32 {
                s[flag_pos..flag_pos + 4].copy_from_slice(&flags.to_le_bytes());
                flag_pos = s.len();
                s.extend_from_slice(&[0; 4]);
                count = 0;
            }
        }
        let fill = if count == 0 {
            u32::MAX
        } else {
            flags << (32 - count) | ((1u32 << (32 - count)) - 1)
        };
        s[flag_pos..flag_pos + 4].copy_from_slice(&fill.to_le_bytes());
        s
    }

    #[test]
    fn fast_paths_agree_with_the_reference_decoder() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut long_ok = 0;
        for round in 0..1500 {
            let symbols = (next() % 200) as usize;
            let mut input = random_stream(&mut next, symbols);
            // Every third stream is damaged: flipped bytes or truncation.
            match round % 3 {
                1 if !input.is_empty() => {
                    let k = next() as usize % input.len();
                    input[k] ^= 1 << (next() % 8);
                }
                2 => input.truncate(next() as usize % (input.len() + 1)),
                _ => {}
            }
            let n = (next() % 60_000) as usize;
            let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
            match (decompress(&input, &mut a), reference(&input, &mut b)) {
                (Ok(x), Some(y)) => {
                    assert_eq!(x, y, "round {round}");
                    assert_eq!(a[..x], b[..y], "round {round}");
                    long_ok += usize::from(x > 64);
                }
                (Err(_), None) => {}
                (x, y) => panic!("round {round}: fast {x:?}, reference {y:?}"),
            }
        }
        assert!(long_ok > 100, "only {long_ok} long successful decodes");
    }
}
