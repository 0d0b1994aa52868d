//! A small element tree read from XML that comes from outside, within limits: the document's
//! size, the nesting depth, the number of elements and the text kept per element are bounded; a
//! DOCTYPE is refused outright, so no entity is ever declared, let alone expanded (a "billion
//! laughs" document is refused before its first entity); only XML's five predefined entities and
//! character references are resolved. Namespaces are dropped: elements are known by their local
//! names, which is all the Atom feed and CAP need. A long document of many like children (the
//! feed's entries) is read as a stream of them ([`stream_children`]), one child's tree at a time.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// Attributes kept per element (CAP and Atom use one or two).
const MAX_ATTRIBUTES: usize = 8;

/// What the reader accepts.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest document, in bytes.
    pub max_bytes: usize,
    /// Deepest nesting of elements.
    pub max_depth: usize,
    /// Most elements in the document.
    pub max_elements: usize,
    /// Most characters of text kept per element (the rest is dropped).
    pub max_text_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_bytes: 1 << 20, max_depth: 24, max_elements: 20_000, max_text_chars: 8_000 }
    }
}

/// Why a document was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XmlError {
    /// Larger than the limit.
    #[error("the document is larger than {0} bytes")]
    TooLarge(usize),
    /// Nested deeper than the limit.
    #[error("the document nests deeper than {0} elements")]
    TooDeep(usize),
    /// More elements than the limit.
    #[error("the document has more than {0} elements")]
    TooManyElements(usize),
    /// It declares a DOCTYPE (entities could be defined there).
    #[error("the document declares a DOCTYPE")]
    DocType,
    /// It refers to an entity that is not one of XML's five.
    #[error("the document refers to an undeclared entity")]
    UnknownEntity,
    /// Not well-formed XML (or not UTF-8).
    #[error("not well-formed XML: {0}")]
    Malformed(String),
    /// No root element.
    #[error("the document is empty")]
    Empty,
}

/// An element: its local name, attributes, text and children.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    /// The local name (without namespace prefix).
    pub name: String,
    /// Attributes, by local name, in document order.
    pub attributes: Vec<(String, String)>,
    /// The element's own text (CDATA included), trimmed.
    pub text: String,
    /// Child elements, in document order.
    pub children: Vec<Element>,
}

impl Element {
    /// The first child called `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Every child called `name`.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The text of the first child called `name`, when it has any.
    pub fn text_of(&self, name: &str) -> Option<&str> {
        self.child(name).map(|c| c.text.as_str()).filter(|t| !t.is_empty())
    }

    /// The attribute called `name`.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

fn malformed(e: impl std::fmt::Display) -> XmlError {
    XmlError::Malformed(e.to_string())
}

fn local(name: &str) -> String {
    name.rsplit(':').next().unwrap_or(name).to_string()
}

fn open(start: &BytesStart<'_>) -> Result<Element, XmlError> {
    let mut element = Element { name: local(start.name().as_ref()), ..Element::default() };
    for attribute in start.attributes().take(MAX_ATTRIBUTES) {
        let attribute = attribute.map_err(malformed)?;
        let value =
            attribute.normalized_value(quick_xml::XmlVersion::Implicit1_0).map_err(malformed)?;
        element.attributes.push((local(attribute.key.as_ref()), value.into_owned()));
    }
    Ok(element)
}

/// Appends `more` to `text`, keeping at most `max` characters.
fn push_text(text: &mut String, more: &str, max: usize) {
    let room = max.saturating_sub(text.chars().count());
    text.extend(more.chars().take(room));
}

/// Reads `bytes` into the tree of its root element, within `limits`.
pub fn parse(bytes: &[u8], limits: Limits) -> Result<Element, XmlError> {
    read(bytes, limits, None)
}

/// Reads `bytes` as a stream of its root element's children: each child's tree is handed to
/// `each`, with the root's name, as soon as the child ends, and is not kept — so a document of
/// any number of children is read in the memory of one. `max_elements` bounds each child
/// rather than the document; `max_bytes`, the depth and the text stay bounded as in [`parse`].
/// Returns the root without its children.
pub fn stream_children(
    bytes: &[u8],
    limits: Limits,
    each: &mut dyn FnMut(&str, Element),
) -> Result<Element, XmlError> {
    read(bytes, limits, Some(each))
}

/// What a stream hands each child of the root to, with the root's name.
type Each<'a> = &'a mut dyn FnMut(&str, Element);

/// Hands `element`, just ended, to its parent on `stack` (or to `each` when streaming and the
/// parent is the root), or makes it the root.
fn close(
    element: Element,
    stack: &mut [Element],
    root: &mut Option<Element>,
    each: &mut Option<Each<'_>>,
    elements: &mut usize,
) {
    let depth = stack.len();
    match (stack.last_mut(), each) {
        (Some(parent), Some(each)) if depth == 1 => {
            each(&parent.name, element);
            *elements = 1;
        }
        (Some(parent), _) => parent.children.push(element),
        (None, _) => *root = Some(element),
    }
}

fn read(bytes: &[u8], limits: Limits, mut each: Option<Each<'_>>) -> Result<Element, XmlError> {
    if bytes.len() > limits.max_bytes {
        return Err(XmlError::TooLarge(limits.max_bytes));
    }
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut elements = 0usize;
    let mut root: Option<Element> = None;
    let mut buf = Vec::new();
    loop {
        let event = reader.read_event_into(&mut buf).map_err(malformed)?;
        match event {
            Event::DocType(_) => return Err(XmlError::DocType),
            Event::Start(start) | Event::Empty(start) if root.is_some() => {
                let _ = start;
                return Err(XmlError::Malformed("content after the root element".into()));
            }
            Event::Start(start) => {
                elements += 1;
                if elements > limits.max_elements {
                    return Err(XmlError::TooManyElements(limits.max_elements));
                }
                if stack.len() >= limits.max_depth {
                    return Err(XmlError::TooDeep(limits.max_depth));
                }
                stack.push(open(&start)?);
            }
            Event::Empty(start) => {
                elements += 1;
                if elements > limits.max_elements {
                    return Err(XmlError::TooManyElements(limits.max_elements));
                }
                let element = open(&start)?;
                close(element, &mut stack, &mut root, &mut each, &mut elements);
            }
            Event::End(_) => {
                let mut element = stack.pop().ok_or_else(|| malformed("unbalanced end tag"))?;
                element.text = element.text.trim().to_string();
                close(element, &mut stack, &mut root, &mut each, &mut elements);
            }
            Event::Text(text) => {
                if let Some(element) = stack.last_mut() {
                    let text = text.xml10_content();
                    push_text(&mut element.text, &text, limits.max_text_chars);
                }
            }
            Event::CData(data) => {
                if let Some(element) = stack.last_mut() {
                    let text = data.xml10_content();
                    push_text(&mut element.text, &text, limits.max_text_chars);
                }
            }
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref().map_err(malformed)? {
                    Some(c) => c.to_string(),
                    None => {
                        let name = reference.xml10_content();
                        quick_xml::escape::resolve_predefined_entity(&name)
                            .ok_or(XmlError::UnknownEntity)?
                            .to_string()
                    }
                };
                if let Some(element) = stack.last_mut() {
                    push_text(&mut element.text, &resolved, limits.max_text_chars);
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
        }
        buf.clear();
    }
    if !stack.is_empty() {
        return Err(malformed("the document ends inside an element"));
    }
    root.ok_or(XmlError::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(xml: &str) -> Result<Element, XmlError> {
        parse(xml.as_bytes(), Limits::default())
    }

    #[test]
    fn elements_are_known_by_local_name_with_text_attributes_and_predefined_entities() {
        let root = read(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>a&amp;b &#x81FA;</id>
<link rel="alternate" href="https://x/?a=1&amp;b=2"/><cap:note xmlns:cap="urn:x"><![CDATA[<b>raw</b>]]></cap:note></entry></feed>"#,
        )
        .expect("parsed");
        assert_eq!(root.name, "feed");
        let entry = root.child("entry").expect("entry");
        assert_eq!(entry.text_of("id"), Some("a&b 臺"));
        assert_eq!(
            entry.child("link").and_then(|l| l.attribute("href")),
            Some("https://x/?a=1&b=2")
        );
        assert_eq!(entry.text_of("note"), Some("<b>raw</b>"));
    }

    #[test]
    fn a_doctype_is_refused_before_any_entity_is_expanded() {
        let laughs = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>"#;
        assert_eq!(read(laughs), Err(XmlError::DocType));
        assert_eq!(read("<a>&lol;</a>"), Err(XmlError::UnknownEntity));
    }

    #[test]
    fn depth_size_and_element_count_are_bounded() {
        let deep = format!("{}{}", "<a>".repeat(10_000), "</a>".repeat(10_000));
        assert_eq!(read(&deep), Err(XmlError::TooDeep(24)));
        let big = format!("<a>{}</a>", "x".repeat(2 << 20));
        assert_eq!(read(&big), Err(XmlError::TooLarge(1 << 20)));
        let many = format!("<a>{}</a>", "<b/>".repeat(30_000));
        assert_eq!(read(&many), Err(XmlError::TooManyElements(20_000)));
        let long = format!("<a>{}</a>", "字".repeat(20_000));
        assert_eq!(read(&long).expect("kept").text.chars().count(), 8_000);
    }

    #[test]
    fn a_stream_hands_over_each_child_and_bounds_each_not_the_document() {
        let many =
            format!("<feed><title>t</title>{}</feed>", "<entry><id>1</id></entry>".repeat(30_000));
        let limits = Limits { max_bytes: 4 << 20, ..Limits::default() };
        let mut seen = 0;
        let root = stream_children(many.as_bytes(), limits, &mut |root, child| {
            assert_eq!(root, "feed");
            seen += usize::from(child.name == "entry" && child.text_of("id") == Some("1"));
        })
        .expect("read");
        assert_eq!((root.name.as_str(), root.children.len(), seen), ("feed", 0, 30_000));
        let fat = format!("<feed><entry>{}</entry></feed>", "<b/>".repeat(30_000));
        let refused = stream_children(fat.as_bytes(), limits, &mut |_, _| {});
        assert_eq!(refused, Err(XmlError::TooManyElements(20_000)));
        let laughs = r#"<!DOCTYPE feed [<!ENTITY a "a">]><feed/>"#;
        assert_eq!(
            stream_children(laughs.as_bytes(), limits, &mut |_, _| {}),
            Err(XmlError::DocType)
        );
    }

    #[test]
    fn malformed_documents_are_refused() {
        assert!(matches!(read("<a><b></a>"), Err(XmlError::Malformed(_))));
        assert!(matches!(read("<a>"), Err(XmlError::Malformed(_))));
        assert_eq!(read("   "), Err(XmlError::Empty));
        assert!(matches!(read("<a/><b/>"), Err(XmlError::Malformed(_))));
    }
}
