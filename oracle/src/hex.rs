//! Lowercase hex, two digits per byte: how plans, reports and findings
//! write bytes as text (one codec for the whole project).

/// `bytes` as lowercase hex.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// Parses hex of either case, two digits per byte; `None` for an odd
/// length or a non-hex digit.
pub fn decode(s: &str) -> Option<Vec<u8>> {
    // from_str_radix alone would take a sign ("+1").
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(s.get(k..k + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let b = [0u8, 0x0f, 0xa5, 0xff];
        assert_eq!(encode(&b), "000fa5ff");
        assert_eq!(decode("000FA5ff"), Some(b.to_vec()));
        assert_eq!(decode(""), Some(Vec::new()));
        assert_eq!(decode("abc"), None);
        assert_eq!(decode("zz"), None);
        assert_eq!(decode("+1"), None);
    }
}
