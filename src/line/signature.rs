//! The webhook signature: base64(HMAC-SHA256(channel secret, raw body)), checked in constant time
//! over the exact bytes received.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// True if `signature` (the `x-line-signature` header) matches `body` under `secret`.
pub fn verify(secret: &str, body: &[u8], signature: &str) -> bool {
    let Ok(expected) = STANDARD.decode(signature.trim()) else {
        return false;
    };
    let Ok(mut mac) = HmacSha256::new_from_slice(secret.as_bytes()) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

/// The signature LINE would send for `body` (for tests, benchmarks and local tools).
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac =
        HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC accepts any key length");
    mac.update(body);
    STANDARD.encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &[u8] = br#"{"destination":"U8e742f61d673b39c7fff3cecb7536ef0","events":[]}"#;
    const SECRET: &str = "8c570fa6dd201bb328f1c1eac23a96d8";
    const SIGNATURE: &str = "GhRKmvmHys4Pi8DxkF4+EayaH0OqtJtaZxgTD9fMDLs=";

    #[test]
    fn official_test_vector_verifies() {
        assert!(verify(SECRET, BODY, SIGNATURE));
        assert_eq!(sign(SECRET, BODY), SIGNATURE);
    }

    #[test]
    fn one_changed_byte_fails() {
        let mut body = BODY.to_vec();
        body[10] ^= 1;
        assert!(!verify(SECRET, &body, SIGNATURE));
    }

    #[test]
    fn wrong_secret_or_garbage_signature_fails() {
        assert!(!verify("another-secret", BODY, SIGNATURE));
        assert!(!verify(SECRET, BODY, "not base64!"));
        assert!(!verify(SECRET, BODY, ""));
    }
}
