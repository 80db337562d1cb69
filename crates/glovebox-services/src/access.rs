//! Who may reach a page or endpoint glovebox serves on loopback (`glovebox
//! serve`, the indicator): a request whose `Host` names this machine and
//! that carries the per-run token. One rule for every surface that serves.

/// An HTTP authority (`host[:port]`) that names this machine.
pub fn loopback(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => authority
            .rsplit_once(':')
            .map(|(h, port)| if port.chars().all(|c| c.is_ascii_digit()) { h } else { authority })
            .unwrap_or(authority),
    };
    matches!(host.to_ascii_lowercase().as_str(), "localhost" | "127.0.0.1" | "::1")
}

/// Equal secrets, compared in time that does not depend on where they differ
/// (`subtle`'s `ConstantTimeEq`; only the lengths are compared plainly).
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    subtle::ConstantTimeEq::ct_eq(a, b).into()
}

/// A new per-run token: 32 hex characters of [`crate::os::random_bytes`].
pub fn new_token() -> std::io::Result<String> {
    Ok(crate::os::random_bytes::<16>()?.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_authorities_pass_and_secrets_compare_whole() {
        assert!(
            loopback("127.0.0.1:8000")
                && loopback("localhost")
                && loopback("[::1]:1")
                && loopback("LOCALHOST:80")
        );
        assert!(
            !loopback("evil.example:8000")
                && !loopback("127.0.0.1.evil.example")
                && !loopback("localhost.evil.example")
        );
        assert!(same_secret(b"abc", b"abc"));
        assert!(
            !same_secret(b"abc", b"abd")
                && !same_secret(b"abc", b"abcd")
                && !same_secret(b"", b"a")
        );
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert!(a.len() == 32 && a != b && a.bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
