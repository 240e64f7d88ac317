//! The query string of a request, parsed strictly: a public service should refuse what it does
//! not understand with a clear message rather than guess. Every key must be known to the route,
//! appear once, and be valid percent-encoded UTF-8 (`+` is a space, as forms send it).

use millstone::{Rules, Variant};

/// The longest query string accepted, in bytes: a position string is under 60, so anything
/// much longer is a mistake or an attack, and is refused before any work.
pub const MAX_QUERY_BYTES: usize = 512;

/// A refused query: the message goes to the client as `{"error": ...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The decoded parameters of a query, in order.
#[derive(Debug, Default)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

/// User text quoted in an error message, cut so an error never echoes a long input.
pub fn quote(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        format!("'{s}'")
    } else {
        format!("'{}...'", s.chars().take(MAX).collect::<String>())
    }
}

/// Decodes one percent-encoded component; `+` is a space.
fn decode(raw: &str) -> Result<String, QueryError> {
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = |c: u8| (c as char).to_digit(16);
                let pair = b.get(i + 1).zip(b.get(i + 2));
                match pair.and_then(|(&h, &l)| Some(hex(h)? * 16 + hex(l)?)) {
                    Some(v) => out.push(v as u8),
                    None => {
                        return Err(QueryError(format!(
                            "bad percent-encoding in {}",
                            quote(raw)
                        )))
                    }
                }
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out)
        .map_err(|_| QueryError(format!("not UTF-8 once decoded: {}", quote(raw))))
}

impl Params {
    /// Parses `query` (without the `?`), accepting only the keys in `known`.
    pub fn parse(query: Option<&str>, known: &[&str]) -> Result<Params, QueryError> {
        let query = query.unwrap_or("");
        if query.len() > MAX_QUERY_BYTES {
            return Err(QueryError(format!(
                "query string of {} bytes; at most {MAX_QUERY_BYTES}",
                query.len()
            )));
        }
        let mut pairs: Vec<(String, String)> = Vec::new();
        for part in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                QueryError(format!(
                    "parameter {} has no value (key=value)",
                    quote(part)
                ))
            })?;
            let (k, v) = (decode(k)?, decode(v)?);
            if !known.contains(&k.as_str()) {
                return Err(QueryError(format!(
                    "unknown parameter {} (this route takes: {})",
                    quote(&k),
                    known.join(", ")
                )));
            }
            if pairs.iter().any(|(seen, _)| *seen == k) {
                return Err(QueryError(format!("parameter '{k}' given twice")));
            }
            pairs.push((k, v));
        }
        Ok(Params { pairs })
    }

    /// The value of a key, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The rule set: `variant=nine|twelve` (default nine) and `flying=true|false` (default
    /// true), parsed to the library's enum so no request text ever reaches a file name.
    pub fn rules(&self) -> Result<Rules, QueryError> {
        let variant = match self.get("variant") {
            None => Variant::Nine,
            Some("nine") => Variant::Nine,
            Some("twelve") => Variant::Twelve,
            Some(v) => {
                return Err(QueryError(format!(
                    "unknown variant {} (nine or twelve)",
                    quote(v)
                )))
            }
        };
        let flying = match self.get("flying") {
            None | Some("true") => true,
            Some("false") => false,
            Some(v) => {
                return Err(QueryError(format!(
                    "flying must be true or false, not {}",
                    quote(v)
                )))
            }
        };
        Ok(Rules::new(variant, flying))
    }

    /// A small number parameter, if given.
    pub fn number(&self, key: &str, max: u8) -> Result<Option<u8>, QueryError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.parse::<u8>() {
                Ok(n) if n <= max && v.bytes().all(|c| c.is_ascii_digit()) => Ok(Some(n)),
                _ => Err(QueryError(format!(
                    "{key} must be a number from 0 to {max}, not {}",
                    quote(v)
                ))),
            },
        }
    }
}

/// The name of a rule set as the API writes it, e.g. `nine-fly`.
pub fn rules_name(r: Rules) -> String {
    format!(
        "{}-{}",
        r.variant.name(),
        if r.flying { "fly" } else { "nofly" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_refuses() {
        let p = Params::parse(Some("fen=a%20b+c&variant=nine"), &["fen", "variant"]).unwrap();
        assert_eq!(p.get("fen"), Some("a b c"));
        assert!(Params::parse(Some("fen=%G1"), &["fen"]).is_err());
        assert!(Params::parse(Some("fen=%E2%82"), &["fen"]).is_err());
        assert!(Params::parse(Some("fen=%"), &["fen"]).is_err());
        assert!(Params::parse(Some("fen=a&fen=b"), &["fen"]).is_err());
        assert!(Params::parse(Some("path=x"), &["fen"]).is_err());
        assert!(Params::parse(Some("fen"), &["fen"]).is_err());
        let long = format!("fen={}", "a".repeat(MAX_QUERY_BYTES));
        assert!(Params::parse(Some(&long), &["fen"]).is_err());
        let bad = Params::parse(Some("variant=..%2F..%2Fetc"), &["variant"]).unwrap();
        assert!(bad.rules().is_err());
        assert!(Params::parse(Some("flying=yes"), &["flying"])
            .unwrap()
            .rules()
            .is_err());
    }
}
