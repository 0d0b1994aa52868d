//! Credentials masked wherever a URL setting is shown: `--help`, `hearth doctor`, logs and
//! errors.

/// Query parameters whose values are credentials, by what their names contain.
const CREDENTIAL_PARAMS: [&str; 7] = ["pass", "pwd", "token", "key", "secret", "auth", "sig"];

/// `url` with its credentials replaced by `***`: its whole `user:password@` part (a user name
/// alone may be a key) and
/// the values of query parameters named like credentials (`?password=`, `api_key=`,
/// `access_token=`…). For everything that shows a URL setting: `--help`, `hearth doctor`, logs
/// and errors. Anything that is not a URL comes back unchanged.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    // The whole `user:password@` part: a user name alone is often a key (`https://KEY@host`).
    let authority = match rest[..authority_end].rfind('@') {
        Some(at) => format!("***{}", &rest[at..authority_end]),
        None => rest[..authority_end].to_string(),
    };
    let tail = &rest[authority_end..];
    let (before_query, query_and_fragment) = match tail.find('?') {
        Some(q) => (&tail[..q], &tail[q + 1..]),
        None => return format!("{}{authority}{tail}", &url[..scheme_end]),
    };
    let (query, fragment) = match query_and_fragment.find('#') {
        Some(f) => (&query_and_fragment[..f], &query_and_fragment[f..]),
        None => (query_and_fragment, ""),
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if is_credential(name) => format!("{name}=***"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{}{authority}{before_query}?{}{fragment}", &url[..scheme_end], query.join("&"))
}

fn is_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_PARAMS.iter().any(|c| name.contains(c))
}

/// `text` with every URL in it passed through [`redact_url`] (error messages quote the URL
/// they failed on).
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.find("://") {
        let start = rest[..found]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let end = rest[found..]
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '<' | '>' | '`'))
            .map_or(rest.len(), |i| found + i);
        out.push_str(&rest[..start]);
        out.push_str(&redact_url(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A log writer that masks the credentials of every URL in what it writes
/// ([`redact_urls_in`]): errors quote the URLs they failed on.
pub struct Redacting<W>(pub W);

impl<W: std::io::Write> std::io::Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) if text.contains("://") => {
                self.0.write_all(redact_urls_in(text).as_bytes())?;
            }
            _ => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod redact_tests {
    use super::{redact_url, redact_urls_in};

    #[test]
    fn a_password_in_a_url_is_masked_wherever_it_is() {
        assert_eq!(
            redact_url("mysql://hearth:hunter2@db.example:3306/hearth"),
            "mysql://***@db.example:3306/hearth"
        );
        assert_eq!(
            redact_url("postgres://u@h/db?sslmode=require&password=hunter2"),
            "postgres://***@h/db?sslmode=require&password=***"
        );
        assert_eq!(
            redact_url("https://s.example/search?api_key=k1&q=x&access_token=t#top"),
            "https://s.example/search?api_key=***&q=x&access_token=***#top"
        );
        assert_eq!(redact_url("https://api.line.me"), "https://api.line.me");
        assert_eq!(redact_url("sqlite://hearth.db"), "sqlite://hearth.db");
        assert_eq!(redact_url("not a url"), "not a url");
    }

    #[test]
    fn urls_quoted_in_an_error_are_masked() {
        let said = redact_urls_in(
            "error sending request for url (https://u:pw@searx.example/search?token=t): refused",
        );
        assert_eq!(
            said,
            "error sending request for url (https://***@searx.example/search?token=***): refused"
        );
        assert!(!said.contains("pw@") && !said.contains("u:"));
    }
}
