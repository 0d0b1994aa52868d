//! How deep and how large an HTML document is, measured without recursion, so that no page
//! reaches the Readability extractor (whose Markdown output recurses once per level of nesting)
//! deeper than [`MAX_DEPTH`]: a cheap scan of the tags decides before parsing ([`scan`]), and an
//! exact walk of the parsed tree confirms after ([`measure`]), since a parser can nest what a
//! scan of the tags does not see as nested.

use std::collections::HashMap;

/// Deepest element nesting given to Readability; deeper pages use the flat fallback.
pub const MAX_DEPTH: usize = 256;
/// Elements given to Readability at most; larger documents use the flat fallback.
pub const MAX_ELEMENTS: usize = 40_000;

/// How deep and how large a document is (a scan stops counting once past the limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// The deepest nesting of elements seen.
    pub depth: usize,
    /// Elements seen.
    pub elements: usize,
}

impl Shape {
    /// True when Readability may be given the document.
    pub fn fits(self) -> bool {
        self.depth <= MAX_DEPTH && self.elements <= MAX_ELEMENTS
    }
}

/// Elements that never have content.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr",
];
/// Elements whose content is text up to their end tag.
const RAW_TEXT: &[&str] =
    &["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"];
/// Start tags (left) that close the current element while it is one of those on the right, as
/// a parser does (`<li>one<li>two` are siblings).
const SIBLINGS: &[(&[&str], &[&str])] = &[
    (&["p"], &["p"]),
    (&["li"], &["li"]),
    (&["dt", "dd"], &["dt", "dd"]),
    (&["td", "th"], &["td", "th"]),
    (&["tr"], &["td", "th", "tr"]),
    (&["option"], &["option"]),
];

/// Scans the tags of `html` in one pass, with a stack of open element names (no recursion),
/// and stops as soon as the document no longer fits. End tags close the nearest open element
/// of their name and are ignored when none is open; `/>` closes only inside SVG or MathML.
pub fn scan(html: &str) -> Shape {
    let lower = html.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut stack: Vec<&str> = Vec::new();
    let mut open: HashMap<&str, usize> = HashMap::new();
    let mut shape = Shape::default();
    let mut at = 0;
    while let Some(found) = lower[at..].find('<') {
        let lt = at + found;
        let rest = &lower[lt + 1..];
        at = lt + 1;
        if rest.starts_with("!--") {
            // `<!-->` and `<!--->` are (empty) comments too.
            at = rest.get(1..).and_then(|r| r.find("-->")).map_or(bytes.len(), |e| lt + 2 + e + 3);
            continue;
        }
        if rest.starts_with(['!', '?']) {
            at = rest.find('>').map_or(bytes.len(), |e| lt + 1 + e + 1);
            continue;
        }
        let closing = rest.starts_with('/');
        let name_start = lt + 1 + usize::from(closing);
        if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_len = lower[name_start..]
            .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
            .unwrap_or(bytes.len() - name_start);
        let name = &lower[name_start..name_start + name_len];
        let tag_end = lower[name_start..].find('>').map_or(bytes.len(), |e| name_start + e + 1);
        at = tag_end;
        if closing {
            close(&mut stack, &mut open, name);
            continue;
        }
        shape.elements += 1;
        if VOID.contains(&name) {
            continue;
        }
        if RAW_TEXT.contains(&name) {
            at = lower[at..].find(&format!("</{name}")).map_or(bytes.len(), |e| at + e);
            continue;
        }
        let self_closed = lower[..tag_end].ends_with("/>");
        let foreign =
            open.get("svg").copied().unwrap_or(0) + open.get("math").copied().unwrap_or(0);
        if self_closed && foreign > 0 {
            continue;
        }
        if let Some((_, closes)) = SIBLINGS.iter().find(|(opens, _)| opens.contains(&name)) {
            while let Some(&top) = stack.last().filter(|top| closes.contains(*top)) {
                close(&mut stack, &mut open, top);
            }
        }
        stack.push(name);
        *open.entry(name).or_default() += 1;
        shape.depth = shape.depth.max(stack.len());
        if !shape.fits() {
            break;
        }
    }
    shape
}

/// Closes the nearest open element named `name`, and everything opened inside it.
fn close<'a>(stack: &mut Vec<&'a str>, open: &mut HashMap<&'a str, usize>, name: &str) {
    if open.get(name).copied().unwrap_or(0) == 0 {
        return;
    }
    while let Some(top) = stack.pop() {
        if let Some(n) = open.get_mut(top) {
            *n = n.saturating_sub(1);
        }
        if top == name {
            break;
        }
    }
}

/// The exact shape of a parsed document, walked without recursion (first child, next sibling,
/// back up), stopping once it no longer fits.
pub fn measure(document: &dom_query::Document) -> Shape {
    let root = document.root();
    let mut shape = Shape::default();
    let mut node = root;
    let mut depth = 0;
    loop {
        if let Some(child) = node.first_child() {
            node = child;
            depth += 1;
        } else {
            loop {
                if node.id == root.id {
                    return shape;
                }
                if let Some(next) = node.next_sibling() {
                    node = next;
                    break;
                }
                match node.parent() {
                    Some(parent) => {
                        node = parent;
                        depth -= 1;
                    }
                    None => return shape,
                }
            }
        }
        if node.is_element() {
            shape.elements += 1;
            shape.depth = shape.depth.max(depth);
        }
        if !shape.fits() {
            return shape;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(open: &str, close: &str, n: usize) -> String {
        format!("<html><body>{}x{}</body></html>", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn an_ordinary_page_is_shallow() {
        let html = "<!DOCTYPE html><html><head><title>a<b></title><meta charset=utf-8>\
            <script>if (a<b) { x('<div><div>') }</script></head><body><!-- <div><div> -->\
            <ul><li>one<li>two<li>three</ul><p>a<br>b<p>c<img src=x><table><tr><td>1<td>2\
            <tr><td>3</table><svg><path d=''/><path d=''/></svg></body></html>";
        let shape = scan(html);
        assert!(shape.depth <= 6, "{shape:?}");
        assert!(shape.fits());
        let parsed = measure(&dom_query::Document::from(html));
        assert!(parsed.depth <= 8 && parsed.fits(), "{parsed:?}");
    }

    #[test]
    fn deep_nesting_is_seen_by_the_scan_and_by_the_walk() {
        for (open, close) in [("<b>", "</b>"), ("<div>", "</div>"), ("<span>", "")] {
            let html = nested(open, close, 1000);
            assert!(!scan(&html).fits(), "{open}");
            assert!(!measure(&dom_query::Document::from(html.as_str())).fits(), "{open}");
            let html = nested(open, close, 100);
            assert!(scan(&html).fits(), "{open}");
            assert!(measure(&dom_query::Document::from(html.as_str())).fits(), "{open}");
        }
    }

    #[test]
    fn stray_end_tags_do_not_hide_depth_from_the_scan() {
        let html = "<div></span></p></b>".repeat(1000);
        assert!(!scan(&html).fits());
    }

    #[test]
    fn many_elements_do_not_fit() {
        let html = "<i></i>".repeat(MAX_ELEMENTS + 1);
        assert_eq!(scan(&html).depth, 1);
        assert!(!scan(&html).fits());
    }
}
