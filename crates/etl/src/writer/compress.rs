//! MS-XCA "Plain LZ77" compression (COMPRESSION_FORMAT_XPRESS), the format
//! of compressed ETL buffers. Greedy matching with a one-entry-per-bucket
//! hash table: fast and deterministic (the table is reset for every input),
//! not the best ratio.

/// Matches reach back at most 2^13 bytes (13-bit offset field).
const MAX_OFFSET: usize = 1 << 13;
const MIN_MATCH: usize = 3;
const HASH_BITS: u32 = 14;

/// Reusable compression state (the hash table), to avoid an allocation per buffer.
pub struct Compressor {
    table: Vec<u32>,
}

impl Default for Compressor {
    fn default() -> Self {
        Compressor::new()
    }
}

/// Bit-packed output: 32-bit flag words (MSB first, 1 = match) in front of
/// the literals and match tokens they describe.
struct Emitter<'o> {
    out: &'o mut Vec<u8>,
    flag_pos: usize,
    flags: u32,
    flag_count: u32,
    /// Byte whose high nibble the next long match fills.
    nibble_pos: Option<usize>,
}

impl Emitter<'_> {
    fn new(out: &mut Vec<u8>) -> Emitter<'_> {
        let flag_pos = out.len();
        out.extend_from_slice(&[0; 4]);
        Emitter {
            out,
            flag_pos,
            flags: 0,
            flag_count: 0,
            nibble_pos: None,
        }
    }

    fn push_flag(&mut self, bit: u32) {
        self.flags = (self.flags << 1) | bit;
        self.flag_count += 1;
        if self.flag_count == 32 {
            self.store_flags(self.flags);
            self.flag_pos = self.out.len();
            self.out.extend_from_slice(&[0; 4]);
            self.flags = 0;
            self.flag_count = 0;
        }
    }

    fn store_flags(&mut self, flags: u32) {
        if let Some(slot) = self.out.get_mut(self.flag_pos..self.flag_pos + 4) {
            slot.copy_from_slice(&flags.to_le_bytes());
        }
    }

    fn literal(&mut self, b: u8) {
        self.out.push(b);
        self.push_flag(0);
    }

    fn literals(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.literal(b);
        }
    }

    /// A match of `len` (>= 3) bytes starting `offset` (1..=8192) bytes back.
    fn matched(&mut self, offset: usize, len: usize) {
        let ml = len - MIN_MATCH;
        let off_bits = ((offset - 1) << 3) as u16;
        if ml < 7 {
            self.out
                .extend_from_slice(&(off_bits | ml as u16).to_le_bytes());
        } else {
            self.out.extend_from_slice(&(off_bits | 7).to_le_bytes());
            let rest = ml - 7;
            let nibble = rest.min(15) as u8;
            match self.nibble_pos.take() {
                None => {
                    self.nibble_pos = Some(self.out.len());
                    self.out.push(nibble);
                }
                Some(p) => {
                    if let Some(b) = self.out.get_mut(p) {
                        *b |= nibble << 4;
                    }
                }
            }
            if rest >= 15 {
                let rest = rest - 15;
                if rest < 255 {
                    self.out.push(rest as u8);
                } else {
                    self.out.push(255);
                    // The wide forms hold the whole length minus 3.
                    match u16::try_from(ml) {
                        Ok(v) => self.out.extend_from_slice(&v.to_le_bytes()),
                        Err(_) => {
                            self.out.extend_from_slice(&0u16.to_le_bytes());
                            self.out.extend_from_slice(&(ml as u32).to_le_bytes());
                        }
                    }
                }
            }
        }
        self.push_flag(1);
    }

    fn finish(mut self) {
        // Unused flag bits are 1s: a "match" with no input left ends the stream.
        let n = self.flag_count;
        let flags = if n == 0 {
            u32::MAX
        } else {
            (self.flags << (32 - n)) | ((1u32 << (32 - n)) - 1)
        };
        self.store_flags(flags);
    }
}

#[inline]
fn read_u32(b: &[u8], i: usize) -> Option<u32> {
    let s = b.get(i..i + 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline]
fn hash(v: u32) -> usize {
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// Length of the common prefix of `input[a..]` and `input[b..]` (a < b).
#[inline]
fn common_len(input: &[u8], a: usize, b: usize) -> usize {
    let (Some(x), Some(y)) = (input.get(a..), input.get(b..)) else {
        return 0;
    };
    let max = y.len();
    let mut n = 0;
    while n + 8 <= max {
        let (Some(p), Some(q)) = (x.get(n..n + 8), y.get(n..n + 8)) else {
            break;
        };
        let d = u64::from_le_bytes(p.try_into().unwrap_or([0; 8]))
            ^ u64::from_le_bytes(q.try_into().unwrap_or([0; 8]));
        if d != 0 {
            return n + (d.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < max && x.get(n) == y.get(n) {
        n += 1;
    }
    n
}

impl Compressor {
    pub fn new() -> Compressor {
        Compressor {
            table: vec![u32::MAX; 1 << HASH_BITS],
        }
    }

    /// Compress `input`, appending to `out`.
    pub fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) {
        self.table.fill(u32::MAX);
        let mut e = Emitter::new(out);
        let n = input.len();
        let mut i = 0usize;
        let mut lit_start = 0usize;
        while let Some(v) = read_u32(input, i) {
            let h = hash(v);
            let cand = self.table.get(h).copied().unwrap_or(u32::MAX) as usize;
            if let Some(slot) = self.table.get_mut(h) {
                *slot = i as u32;
            }
            if cand < i && i - cand <= MAX_OFFSET && read_u32(input, cand) == Some(v) {
                let len = 4 + common_len(input, cand + 4, i + 4);
                e.literals(input.get(lit_start..i).unwrap_or(&[]));
                e.matched(i - cand, len);
                // Index a few positions inside the match so later repeats find it.
                let end = i + len;
                let mut j = i + 1;
                while j < end && j < i + 8 {
                    if let Some(w) = read_u32(input, j) {
                        if let Some(slot) = self.table.get_mut(hash(w)) {
                            *slot = j as u32;
                        }
                    }
                    j += 1;
                }
                i = end;
                lit_start = i;
            } else {
                i += 1;
            }
        }
        e.literals(input.get(lit_start..n).unwrap_or(&[]));
        e.finish();
    }
}

/// Compress `input` into a new vector (convenience; allocates a table).
pub fn compress(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() / 2 + 16);
    Compressor::new().compress(input, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xca::decompress;

    fn round_trip(input: &[u8]) -> Vec<u8> {
        let c = compress(input);
        let mut out = vec![0u8; input.len()];
        let n = decompress(&c, &mut out).unwrap();
        assert_eq!(n, input.len());
        assert_eq!(out, input);
        c
    }

    #[test]
    fn round_trips_edge_cases() {
        round_trip(b"");
        round_trip(b"a");
        round_trip(b"abc");
        round_trip(b"abcabcabcabc");
        // Long runs exercise every match-length encoding: nibble, byte, u16, u32.
        for len in [10, 25, 40, 300, 70_000, 200_000] {
            let v = vec![7u8; len];
            let c = round_trip(&v);
            assert!(c.len() < 64, "run of {len} compressed to {}", c.len());
        }
        // Two long matches share one nibble byte.
        let mut v = b"0123456789abcdefghij".repeat(3);
        v.extend(b"XYZ0123456789abcdefghijXYZ0123456789abcdefghij".iter());
        round_trip(&v);
    }

    #[test]
    fn round_trips_pseudo_random_mixes() {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..200 {
            let len = (next() % 20_000) as usize;
            let alphabet = 1 + (next() % 8) as u8;
            let mut v = Vec::with_capacity(len);
            while v.len() < len {
                if next() % 3 == 0 && v.len() > 10 {
                    // Copy from up to 10 KiB back, beyond the 8 KiB window sometimes.
                    let back = 1 + (next() as usize % v.len().min(10_000));
                    let n = (next() % 400) as usize;
                    let from = v.len() - back;
                    for k in 0..n {
                        let b = v[from + k % back];
                        v.push(b);
                    }
                } else {
                    v.push((next() % alphabet as u64) as u8);
                }
            }
            v.truncate(len);
            round_trip(&v);
        }
    }

    #[test]
    fn is_deterministic() {
        let v: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut c = Compressor::new();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        c.compress(&v, &mut a);
        c.compress(&v, &mut b);
        assert_eq!(a, b);
    }
}
