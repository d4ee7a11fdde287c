//! Binary IP addresses: the TcpIp/UdpIp events (kernel, and
//! Microsoft-Windows-Kernel-Network, whose layout is the same) begin
//! u32 PID, u32 size, daddr, saddr (4 bytes each, 16 for IPv6). Each
//! address becomes a private one derived from it, the same everywhere;
//! loopback and unspecified addresses stay.

use crate::mask::Salt;
use etl::decode::{decode, Decoded, NetOp};
use etl::Event;

/// Byte ranges of the event's addresses within its payload.
pub fn address_ranges(ev: &Event<'_>) -> Vec<std::ops::Range<usize>> {
    let Some(Ok(Decoded::Net(n))) = decode(ev) else {
        return Vec::new();
    };
    if n.op == NetOp::Fail {
        return Vec::new();
    }
    let len = if n.ipv6 { 16 } else { 4 };
    let ranges = vec![8..8 + len, 8 + len..8 + 2 * len];
    if ev.payload.len() < 8 + 2 * len {
        return Vec::new();
    }
    ranges
}

/// Replace the address in `a` (4 or 16 bytes); whether it changed.
pub fn replace_address(a: &mut [u8], salt: Salt) -> bool {
    let kept = a.iter().all(|&b| b == 0)
        || (a.len() == 4 && a[0] == 127)
        || (a.len() == 16 && a[..15].iter().all(|&b| b == 0));
    if kept {
        return false;
    }
    let mut h = a
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64 ^ salt.0 ^ 0xA11, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    let mut next = || {
        h = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let z = (h ^ (h >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (z ^ (z >> 29)) as u8
    };
    // 10.0.0.0/8 and fd00::/8: private, so no real host is named.
    a[0] = if a.len() == 4 { 10 } else { 0xfd };
    for b in &mut a[1..] {
        *b = next();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_address_same_private_replacement() {
        let (mut a, mut b) = ([192u8, 168, 1, 20], [192u8, 168, 1, 20]);
        assert!(replace_address(&mut a, Salt(3)));
        assert!(replace_address(&mut b, Salt(3)));
        assert_eq!(a, b);
        assert_eq!(a[0], 10);
        let mut lo = [127u8, 0, 0, 1];
        assert!(!replace_address(&mut lo, Salt(3)));
        assert_eq!(lo, [127, 0, 0, 1]);
        let mut v6 = [0x20u8; 16];
        assert!(replace_address(&mut v6, Salt(3)));
        assert_eq!(v6[0], 0xfd);
    }
}
