//! The page's five languages: every key of the English file is in every other file and no other
//! key is; each text names the same placeholders as the English one; the rules come in the same
//! sections; and every key the page uses (`data-i18n` in index.html, `t("...")` in app.js, the
//! keys it builds) is in the English file. So no string of the page is left untranslated.

use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

const LANGS: [&str; 5] = ["en", "it", "fr", "de", "ru"];

fn web() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web")
}

fn load(code: &str) -> Map<String, Value> {
    let text = std::fs::read_to_string(web().join("lang").join(format!("{code}.json"))).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Value::Object(m) => m,
        v => panic!("{code}.json is not an object: {v}"),
    }
}

/// The `{name}` placeholders of a text.
fn placeholders(s: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = s;
    while let Some(a) = rest.find('{') {
        let Some(b) = rest[a..].find('}') else { break };
        out.insert(rest[a + 1..a + b].to_string());
        rest = &rest[a + b + 1..];
    }
    out
}

/// The strings between `prefix` and the next `"` in `text`.
fn quoted_after(text: &str, prefix: &str) -> BTreeSet<String> {
    text.split(prefix)
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|s| s.to_string())
        .collect()
}

/// The string literals directly inside every call `name(...)` of the page's script (not inside
/// nested brackets): the keys it asks for, the alternatives of a `? :` included.
fn keys_in_calls(js: &str, name: &str) -> BTreeSet<String> {
    let b = js.as_bytes();
    let call = format!("{name}(");
    let mut out = BTreeSet::new();
    let mut i = 0;
    while let Some(k) = js[i..].find(&call) {
        let at = i + k;
        i = at + call.len();
        let word_before =
            at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_' || b[at - 1] == b'.');
        if word_before {
            continue;
        }
        let (mut depth, mut j) = (1, at + call.len());
        while j < b.len() && depth > 0 {
            match b[j] {
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => depth -= 1,
                b'"' => {
                    let end = j + 1 + js[j + 1..].find('"').unwrap();
                    let lit = &js[j + 1..end];
                    let key_like = lit.starts_with(|c: char| c.is_ascii_lowercase())
                        && lit
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                    // A literal compared with (`x === "tables" ? ...`) is a value, not a key.
                    let compared = js[..j].trim_end().ends_with('=');
                    if depth == 1 && key_like && !compared {
                        out.insert(lit.to_string());
                    }
                    j = end;
                }
                _ => {}
            }
            j += 1;
        }
    }
    out
}

#[test]
fn every_language_has_every_key() {
    let en = load("en");
    assert!(en.len() > 100, "{} keys", en.len());
    for code in LANGS {
        let tr = load(code);
        let a: BTreeSet<_> = en.keys().collect();
        let b: BTreeSet<_> = tr.keys().collect();
        assert_eq!(
            a.difference(&b).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "keys missing in {code}.json"
        );
        assert_eq!(
            b.difference(&a).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "keys in {code}.json that English lacks"
        );
        for (k, v) in &en {
            let t = &tr[k];
            match (v, t) {
                (Value::String(e), Value::String(s)) => {
                    assert!(!s.trim().is_empty(), "{code}: {k} is empty");
                    assert_eq!(
                        placeholders(e),
                        placeholders(s),
                        "{code}: {k} names other placeholders"
                    );
                }
                (Value::Array(e), Value::Array(s)) => {
                    // The rules: the same sections (heading or paragraph) in the same order.
                    let kinds = |a: &Vec<Value>| -> Vec<String> {
                        a.iter()
                            .map(|x| x[0].as_str().unwrap().to_string())
                            .collect()
                    };
                    assert_eq!(kinds(e), kinds(s), "{code}: the rules' sections differ");
                    for x in s {
                        assert!(x[1].as_str().is_some_and(|t| t.len() > 3), "{code}: {x}");
                    }
                }
                _ => panic!("{code}: {k} is of another kind than in English"),
            }
        }
        if code != "en" {
            // Translated, not copied: most texts differ from the English ones.
            let same = en
                .iter()
                .filter(|(k, v)| v.is_string() && tr[*k] == **v)
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>();
            assert!(
                same.len() < 12,
                "{code}: {} texts are the English ones: {same:?}",
                same.len()
            );
        }
    }
}

#[test]
fn every_key_the_page_uses_exists() {
    let en = load("en");
    let html = std::fs::read_to_string(web().join("index.html")).unwrap();
    let js = std::fs::read_to_string(web().join("app.js")).unwrap();
    let mut used = quoted_after(&html, "data-i18n=\"");
    used.extend(quoted_after(&html, "data-i18n-title=\""));
    used.extend(keys_in_calls(&js, "t"));
    // t() in the wording of a touch screen.
    used.extend(keys_in_calls(&js, "tc"));
    // Keys the page looks up in its tables (reasons, why there are no exact hints, results).
    for table in [
        "const REASONS = {",
        "const WHY = {",
        "const RESULT_WORD = {",
        "const GRADES = {",
        "const TAP = {",
    ] {
        let at = js
            .find(table)
            .unwrap_or_else(|| panic!("app.js has no {table}"));
        let body = &js[at..at + js[at..].find('}').unwrap()];
        for (i, part) in body.split('"').enumerate() {
            if i % 2 == 1 && part.contains('_') {
                used.insert(part.to_string());
            }
        }
    }
    used.insert("rules".into());
    assert!(used.len() > 80, "{} keys found", used.len());
    let missing: Vec<_> = used.iter().filter(|k| !en.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "keys the page uses but en.json lacks: {missing:?}"
    );
    // Every text in the page's markup is under a key (no bare English left between tags).
    for line in html.lines() {
        let l = line.trim();
        // The element's own text: between its tag and the next one.
        let text = l
            .split_once('>')
            .map_or("", |(_, rest)| rest.split('<').next().unwrap_or(""));
        let words = text.chars().any(|c| c.is_alphabetic());
        if (l.starts_with("<button") || l.starts_with("<h4") || l.starts_with("<p "))
            && words
            && !l.contains("data-i18n")
        {
            panic!("untranslated markup: {l}");
        }
    }
}

/// Every `refusal!("key", "text", ...)` and `bad!(...)` of the server (its refusals of a
/// request, sent to the page with the key and the values of the text's places): the key is in
/// the English file with the very same text, so the page shows the server's words in English
/// and their translation elsewhere (the other languages are held to the English keys above).
#[test]
fn every_refusal_of_the_server_has_its_text() {
    let en = load("en");
    let mut found = 0;
    let mut stack = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Code only: the macros' own documentation shows a made-up call.
            let code: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for call in ["refusal!(", "bad!("] {
                for part in code.split(call).skip(1) {
                    let mut lits = part.split('"');
                    let (Some(_), Some(key), Some(_), Some(template)) =
                        (lits.next(), lits.next(), lits.next(), lits.next())
                    else {
                        continue;
                    };
                    // A macro's own definition passes its arguments on, not a key.
                    if !key.starts_with("e_") {
                        continue;
                    }
                    found += 1;
                    assert_eq!(
                        en.get(key).and_then(|v| v.as_str()),
                        Some(template),
                        "{}: the refusal {key} and en.json differ",
                        path.display()
                    );
                }
            }
        }
    }
    assert!(
        found > 40,
        "only {found} refusals found in the server's code"
    );
}
