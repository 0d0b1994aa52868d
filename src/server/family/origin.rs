//! Where a change comes from. Every `POST` under `/family` is refused (`403`, nothing changed)
//! when the browser says it was sent from another site — `Sec-Fetch-Site: cross-site` or
//! `same-site` (a sibling subdomain is another site's page) — or when its `Origin` is present
//! and is not hearth's own origin: that of `HEARTH_PUBLIC_URL`, or, without it, the `Host` the
//! request was sent to. This comes before, and on top of, the session's CSRF token: a browser
//! that sends neither header (an old one, or a test's client) is checked by the token alone.
//!
//! `Origin: null` says nothing: a browser sends it for the page's own forms, since every answer
//! carries `Referrer-Policy: no-referrer` (and an attacker's page can ask for it as well), so it
//! is treated as absent and `Sec-Fetch-Site` and the token decide.

use axum::extract::{Request, State};
use axum::http::header::{HOST, ORIGIN};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::Refusal;
use crate::server::page_state::PageState;

/// What hearth's own origin is compared with.
#[derive(Debug, Clone, Copy)]
pub enum Own<'a> {
    /// `HEARTH_PUBLIC_URL` (its scheme, host and port count; a path does not).
    PublicUrl(&'a str),
    /// Without one, the `Host` header the request came with (none: nothing matches).
    Host(Option<&'a str>),
}

/// True when a change with these headers may be from hearth's own page: `Sec-Fetch-Site`, when
/// sent, says `same-origin` (or `none`: typed or bookmarked), and `Origin`, when sent and not
/// `null`, is `own`.
pub fn from_own_page(sec_fetch_site: Option<&str>, origin: Option<&str>, own: Own<'_>) -> bool {
    let site_ok = sec_fetch_site.is_none_or(|site| {
        let site = site.trim();
        site.eq_ignore_ascii_case("same-origin") || site.eq_ignore_ascii_case("none")
    });
    let origin = origin.map(str::trim).filter(|o| !o.eq_ignore_ascii_case("null"));
    site_ok && origin.is_none_or(|origin| is_own(origin, own))
}

/// True when a link may be opened at once by `GET`: the browser says the navigation was the
/// member's own (`Sec-Fetch-Site: none`, a link tapped in LINE or typed) or came from hearth's
/// page, or says nothing (an old browser: the link is one-time and the token alone decides).
/// A navigation another site started (`cross-site`, `same-site`) is asked to tap a button
/// first — a `POST` of hearth's own page, which [`check`] refuses from anywhere else — so a
/// foreign page cannot sign a member's browser into another chat's page (login CSRF).
pub fn opens_at_once(sec_fetch_site: Option<&str>) -> bool {
    sec_fetch_site.is_none_or(|site| {
        let site = site.trim();
        site.eq_ignore_ascii_case("none") || site.eq_ignore_ascii_case("same-origin")
    })
}

/// True when the `Origin` value `origin` is `own`.
fn is_own(origin: &str, own: Own<'_>) -> bool {
    let Ok(given) = url::Url::parse(origin) else { return false };
    // An origin is a scheme, a host and a port, nothing more.
    if given.path() != "/" || given.query().is_some() || given.fragment().is_some() {
        return false;
    }
    let ours = match own {
        Own::PublicUrl(public) => url::Url::parse(public),
        Own::Host(Some(host)) if !host.contains(['/', '@', '?', '#']) => {
            url::Url::parse(&format!("{}://{}", given.scheme(), host.trim()))
        }
        Own::Host(_) => return false,
    };
    ours.is_ok_and(|ours| ours.origin() == given.origin() && given.origin().is_tuple())
}

/// Middleware: a `POST` not [`from_own_page`] is refused before its handler runs.
pub async fn check(State(page): State<PageState>, request: Request, next: Next) -> Response {
    if request.method() == Method::POST && !allowed(&page, request.headers()) {
        tracing::warn!(
            path = request.uri().path(),
            "family page: a change from another site refused"
        );
        return Refusal::Forged.into_response();
    }
    next.run(request).await
}

/// True when a change with `headers` may be from hearth's own page ([`from_own_page`]).
fn allowed(page: &PageState, headers: &HeaderMap) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let own = match page.public_url.as_deref() {
        Some(public) => Own::PublicUrl(public),
        None => Own::Host(text(HOST.as_str())),
    };
    from_own_page(text("sec-fetch-site"), text(ORIGIN.as_str()), own)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_link_opens_at_once_only_from_the_member_s_own_navigation() {
        assert!(opens_at_once(Some("none")));
        assert!(opens_at_once(Some("same-origin")));
        assert!(opens_at_once(None), "an old browser: the one-time token decides");
        assert!(!opens_at_once(Some("cross-site")));
        assert!(!opens_at_once(Some("same-site")), "a sibling subdomain is another site");
    }

    use super::*;

    const PUBLIC: Own<'static> = Own::PublicUrl("https://hearth.example/bot");

    #[test]
    fn a_change_from_another_site_is_refused_whatever_else_it_carries() {
        for site in ["cross-site", "same-site", "Cross-Site", "something-new"] {
            assert!(!from_own_page(Some(site), None, PUBLIC), "{site}");
            assert!(!from_own_page(Some(site), Some("https://hearth.example"), PUBLIC), "{site}");
        }
        for origin in [
            "https://evil.example",
            "http://hearth.example",
            "https://hearth.example:8443",
            "https://hearth.example.evil.example",
            "https://sub.hearth.example",
            "https://hearth.example/bot",
            "not a url",
        ] {
            assert!(!from_own_page(None, Some(origin), PUBLIC), "{origin}");
            assert!(!from_own_page(Some("same-origin"), Some(origin), PUBLIC), "{origin}");
        }
    }

    #[test]
    fn a_change_from_hearth_s_own_page_passes() {
        assert!(from_own_page(Some("same-origin"), Some("https://hearth.example"), PUBLIC));
        assert!(from_own_page(Some("same-origin"), Some("https://HEARTH.example:443"), PUBLIC));
        assert!(from_own_page(Some("none"), None, PUBLIC), "typed or bookmarked");
        assert!(from_own_page(Some("same-origin"), Some("null"), PUBLIC), "no-referrer's null");
    }

    #[test]
    fn without_either_header_the_csrf_token_alone_decides() {
        assert!(from_own_page(None, None, PUBLIC));
        assert!(from_own_page(None, None, Own::Host(None)));
        assert!(from_own_page(None, Some("null"), PUBLIC));
    }

    #[test]
    fn without_a_public_address_the_origin_must_be_the_host_the_request_was_sent_to() {
        let host = Own::Host(Some("127.0.0.1:8080"));
        assert!(from_own_page(None, Some("http://127.0.0.1:8080"), host));
        assert!(!from_own_page(None, Some("http://127.0.0.1:8081"), host));
        assert!(!from_own_page(None, Some("http://evil.example"), host));
        assert!(from_own_page(None, Some("https://h.example"), Own::Host(Some("h.example"))));
        assert!(!from_own_page(None, Some("https://h.example"), Own::Host(Some("u@h.example"))));
        assert!(!from_own_page(None, Some("https://h.example"), Own::Host(None)), "no Host");
    }
}
