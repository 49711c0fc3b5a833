//! Base64url without padding (RFC 4648 §5): its alphabet needs no escaping in a URL.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The text of `bytes`.
pub(super) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// The bytes of `text`; `None` unless it is canonical base64url without padding.
pub(super) fn decode(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|&a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
        // The bits below the last whole byte must be zero, or two texts would mean one value.
        let spare = (1u32 << (32 - 8 * chunk.len())) - 1;
        if n & spare != 0 {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        for len in 0..40 {
            let text = encode(&bytes[..len]);
            assert!(text.bytes().all(|b| ALPHABET.contains(&b)));
            assert_eq!(decode(&text).as_deref(), Some(&bytes[..len]), "{len}");
        }
    }

    #[test]
    fn base64url_matches_the_rfc_examples() {
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(b"fooba"), "Zm9vYmE");
        assert_eq!(encode(b"f"), "Zg");
        assert_eq!(decode("Zm9vYg").as_deref(), Some(&b"foob"[..]));
    }

    #[test]
    fn base64url_refuses_what_is_not_canonical() {
        assert_eq!(decode("Z"), None);
        assert_eq!(decode("Zh"), None);
        assert_eq!(decode("Zm9v+g"), None);
        assert_eq!(decode("Zm=="), None);
    }
}
