//! The shape of the source tree, checked: no import circle inside a crate, no library file
//! over 600 lines, no function over 80.
//!
//! Imports must run downward so that each module can be read, tested and replaced on its own.
//! An edge runs from file A to file B when A names an item that B defines, through a `use`, a
//! path written in code (`crate::...`, `super::...`, or through a module A imported), or a
//! re-export that leads there (`crate::Crowd` counts as the file that defines `Crowd`, not as
//! `lib.rs`). Declaring a child module (`mod x;`) is ownership, not an edge. Test files (under
//! a `tests/` folder) are left out: nothing imports them.
//!
//! Run with `--nocapture` to see the ten longest functions and files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Longest library file, in lines (inline tests included).
const MOST_LINES_PER_FILE: usize = 600;
/// Longest function, in lines from `fn` to its closing brace.
const MOST_LINES_PER_FUNCTION: usize = 80;

#[test]
fn no_import_circle_in_any_crate() {
    let mut report = Vec::new();
    for krate in crates() {
        let graph = edges(&krate);
        for circle in circles(&krate) {
            let files: Vec<&str> = circle.iter().map(|m| krate.files[m].as_str()).collect();
            report.push(format!("{} ({} files):", krate.name, files.len()));
            for from in &circle {
                let within: Vec<&str> = graph[from]
                    .iter()
                    .filter(|to| circle.contains(to))
                    .map(|to| krate.files[to].as_str())
                    .collect();
                report.push(format!("  {} -> {}", krate.files[from], within.join(", ")));
            }
        }
    }
    assert!(
        report.is_empty(),
        "import circles (each is a set of files that reach each other; the imports within it \
         are listed):\n{}",
        report.join("\n")
    );
}

#[test]
fn no_library_file_over_the_limit() {
    let lengths = library_files()
        .into_iter()
        .map(|(path, text)| (text.lines().count(), path))
        .collect();
    check_lengths("library files", lengths, MOST_LINES_PER_FILE);
}

#[test]
fn no_library_function_over_the_limit() {
    let mut functions = Vec::new();
    for (path, text) in library_files() {
        for (name, lines) in function_lengths(&tokens(&text)) {
            functions.push((lines, format!("{path}: {name}")));
        }
    }
    check_lengths("library functions", functions, MOST_LINES_PER_FUNCTION);
}

#[test]
#[should_panic(expected = "things over 3 lines")]
fn an_item_over_the_limit_fails_the_check() {
    check_lengths("things", vec![(3, "short".into()), (4, "long".into())], 3);
}

/// Prints the ten longest `what` (lines, name) and fails if any is over `most` lines.
fn check_lengths(what: &str, mut lengths: Vec<(usize, String)>, most: usize) {
    lengths.sort_by(|a, b| b.cmp(a));
    println!("ten longest {what}:");
    for (lines, name) in lengths.iter().take(10) {
        println!("{lines:>6}  {name}");
    }
    let over: Vec<String> = lengths
        .iter()
        .filter(|(lines, _)| *lines > most)
        .map(|(lines, name)| format!("{name}: {lines} lines"))
        .collect();
    assert!(
        over.is_empty(),
        "{what} over {most} lines; split them by job:\n{}",
        over.join("\n")
    );
}

/// The checker itself: a circle it must find, and imports it must not mistake for one.
#[test]
fn the_checker_finds_a_circle_and_follows_re_exports() {
    let krate = crate_from(
        "example",
        &[
            (
                "lib.rs",
                "mod a; mod b; mod c; mod d; mod e; pub use b::Thing; pub use d::Root;",
            ),
            ("a.rs", "use crate::{Thing, e::Leaf}; pub fn f() {}"),
            (
                "b.rs",
                "use crate::{a, c::Other}; pub struct Thing; fn g() { a::f(); }",
            ),
            (
                "c.rs",
                "pub struct Other; fn h() -> crate::Root { super::Root }",
            ),
            (
                "d.rs",
                "pub struct Root; #[cfg(test)] mod tests { use super::*; use crate::b; }",
            ),
            (
                "e.rs",
                "#[cfg(doc)] use crate::a; /// See [`a`].\npub struct Leaf;",
            ),
        ],
    );
    let found: Vec<Vec<String>> = circles(&krate)
        .into_iter()
        .map(|c| c.iter().map(|m| krate.files[m].clone()).collect())
        .collect();
    // a -> b (through lib.rs's re-export of `Thing`), b -> a: one circle. c -> d through the
    // re-export of `Root`, not c -> lib.rs; d's inline tests name `super` (d itself) and b,
    // but test code is left out, and b -> c -> d does not lead back to b. a -> e, and e's
    // import for its docs is left out too.
    assert_eq!(found, vec![vec!["a.rs".to_string(), "b.rs".to_string()]]);
    let lengths = function_lengths(&tokens("fn one() {\n}\nfn two() {\n\n\n}\n"));
    assert_eq!(
        lengths,
        vec![("one".to_string(), 2), ("two".to_string(), 4)]
    );
}

/// One crate's source files, as module paths.
struct Crate {
    name: String,
    /// Module path (segments below the crate root) to the file's path, for messages.
    files: BTreeMap<Vec<String>, String>,
    /// Module path to the file's tokens.
    sources: BTreeMap<Vec<String>, Vec<Token>>,
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate's library and binary sources: the umbrella crate and `crates/*`.
fn crates() -> Vec<Crate> {
    let root = workspace_root();
    let mut source_dirs = vec![("bevy_flock".to_string(), root.join("src"))];
    let mut members: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/ is readable")
        .map(|entry| entry.expect("a crates/ entry").path())
        .collect();
    members.sort();
    for member in members {
        let name = member.file_name().unwrap().to_string_lossy().into_owned();
        source_dirs.push((name, member.join("src")));
    }
    source_dirs
        .into_iter()
        .map(|(name, dir)| {
            let mut files = Vec::new();
            collect_rust_files(&dir, &mut files);
            let owned: Vec<(String, String)> = files
                .iter()
                .filter(|path| !is_test_file(path))
                .map(|path| {
                    let relative = path.strip_prefix(&dir).unwrap().to_string_lossy();
                    (
                        relative.replace('\\', "/"),
                        fs::read_to_string(path).unwrap(),
                    )
                })
                .collect();
            let borrowed: Vec<(&str, &str)> = owned
                .iter()
                .map(|(p, t)| (p.as_str(), t.as_str()))
                .collect();
            let mut krate = crate_from(&name, &borrowed);
            let shown = dir
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            for file in krate.files.values_mut() {
                *file = format!("{shown}/{file}");
            }
            krate
        })
        .collect()
}

/// Library files (not tests) across the workspace, as (path from the root, text).
fn library_files() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut files = Vec::new();
    collect_rust_files(&root.join("src"), &mut files);
    collect_rust_files(&root.join("crates"), &mut files);
    files
        .into_iter()
        .filter(|path| !is_test_file(path) && path.components().any(|c| c.as_os_str() == "src"))
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            (
                path.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                text,
            )
        })
        .collect()
}

fn is_test_file(path: &Path) -> bool {
    path.components()
        .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "benches")
}

fn collect_rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            collect_rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn crate_from(name: &str, files: &[(&str, &str)]) -> Crate {
    let mut krate = Crate {
        name: name.to_string(),
        files: BTreeMap::new(),
        sources: BTreeMap::new(),
    };
    for (relative, text) in files {
        let mut segments: Vec<String> = relative
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_string)
            .collect();
        if matches!(
            segments.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            segments.pop();
        }
        krate.files.insert(segments.clone(), relative.to_string());
        krate.sources.insert(segments, tokens(text));
    }
    krate
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
    /// A line break; kept so functions can be measured.
    Line,
}

/// Identifiers and punctuation, with comments, strings and character literals dropped.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            out.push(Token::Line);
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        out.push(Token::Line);
                    }
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'r' || c == 'b') && starts_raw_or_byte_string(&chars, i)) {
            i = skip_string(&chars, i, &mut out);
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(Token::Ident(word.trim_start_matches("r#").to_string()));
        } else if c == ':' && next == Some(':') {
            out.push(Token::Path);
            i += 2;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

fn starts_raw_or_byte_string(chars: &[char], i: usize) -> bool {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = i + 1;
    if chars[i] == 'b' && chars.get(j) == Some(&'r') {
        j += 1;
    }
    if chars[i] == 'b' && chars.get(j) == Some(&'\'') {
        return false;
    }
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"') && (j > i + 1 || chars[i] == 'b')
}

/// Skips a string literal starting at `i` (plain, byte, raw), keeping its line breaks.
fn skip_string(chars: &[char], mut i: usize, out: &mut Vec<Token>) -> usize {
    let mut raw = false;
    while chars[i] != '"' && chars[i] != '#' {
        raw |= chars[i] == 'r';
        i += 1;
    }
    let mut hashes = 0;
    while chars[i] == '#' {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < chars.len() {
        match chars[i] {
            '\n' => out.push(Token::Line),
            '\\' if !raw => i += 1,
            '"' if (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) => {
                return i + 1 + hashes;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Each `fn` with a body, and its length in lines from `fn` to the closing brace.
fn function_lengths(tokens: &[Token]) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut line = 1;
    let mut lines_at = Vec::with_capacity(tokens.len());
    for token in tokens {
        lines_at.push(line);
        if *token == Token::Line {
            line += 1;
        }
    }
    for (i, token) in tokens.iter().enumerate() {
        if *token != Token::Ident("fn".into()) {
            continue;
        }
        let Some(Token::Ident(name)) = tokens.get(i + 1) else {
            continue;
        };
        // The body opens at the first `{` before any `;` (a declaration has none).
        let mut j = i + 2;
        let mut depth = 0i32; // parentheses and angle-free nesting before the body
        while j < tokens.len() {
            match tokens[j] {
                Token::Punct('(') | Token::Punct('[') => depth += 1,
                Token::Punct(')') | Token::Punct(']') => depth -= 1,
                Token::Punct(';') if depth == 0 => break,
                Token::Punct('{') if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        if tokens.get(j) != Some(&Token::Punct('{')) {
            continue;
        }
        let mut braces = 0;
        let mut k = j;
        while k < tokens.len() {
            match tokens[k] {
                Token::Punct('{') => braces += 1,
                Token::Punct('}') => {
                    braces -= 1;
                    if braces == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        let end = lines_at.get(k).copied().unwrap_or(line);
        found.push((name.clone(), end - lines_at[i] + 1));
    }
    found
}

/// What one file names and declares, by inline module (empty for the file's own module).
#[derive(Default)]
struct Scan {
    /// Each path as written, with the inline module it is written in.
    paths: Vec<(Vec<String>, Vec<String>)>,
    /// Per inline module, the names its `use` statements bring in, mapped to their paths.
    aliases: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    /// Per inline module, the child modules it declares.
    children: BTreeMap<Vec<String>, BTreeSet<String>>,
}

/// The paths a file names (`use` trees expanded, and paths in code), its imports and its
/// declared modules.
fn scan(tokens: &[Token]) -> Scan {
    let tokens = without_test_items(tokens);
    let mut scan = Scan::default();
    // Inline modules open at the current position, with the brace depth inside each.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let here: Vec<String> = inline.iter().map(|(name, _)| name.clone()).collect();
        match tokens[i] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            Token::Ident(word) if word == "mod" => {
                if let Some(Token::Ident(name)) = tokens.get(i + 1) {
                    scan.children
                        .entry(here.clone())
                        .or_default()
                        .insert(name.clone());
                    if tokens.get(i + 2) == Some(&&Token::Punct('{')) {
                        depth += 1;
                        inline.push((name.clone(), depth));
                        i += 3;
                        continue;
                    }
                }
            }
            Token::Ident(word) if word == "use" => {
                let mut j = i + 1;
                let mut expanded = Vec::new();
                use_tree(&tokens, &mut j, &mut Vec::new(), &mut expanded);
                for (path, alias) in expanded {
                    if let Some(name) = alias {
                        scan.aliases
                            .entry(here.clone())
                            .or_default()
                            .insert(name, path.clone());
                    }
                    scan.paths.push((here.clone(), path));
                }
                i = j;
                continue;
            }
            Token::Ident(_)
                if tokens.get(i + 1) == Some(&&Token::Path)
                    && (i == 0 || *tokens[i - 1] != Token::Path) =>
            {
                let mut path = Vec::new();
                let mut j = i;
                while let Some(Token::Ident(word)) = tokens.get(j) {
                    path.push(word.clone());
                    if tokens.get(j + 1) != Some(&&Token::Path) {
                        break;
                    }
                    j += 2;
                }
                scan.paths.push((here, path));
                i = j + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// The tokens without line breaks and without `#[cfg(test)]` or `#[cfg(doc)]` items: test
/// code may import what it likes, and an import for the docs' links is not a dependency.
fn without_test_items(tokens: &[Token]) -> Vec<&Token> {
    let tokens: Vec<&Token> = tokens.iter().filter(|t| **t != Token::Line).collect();
    let cfg = |what: &str| {
        [
            Token::Punct('#'),
            Token::Punct('['),
            Token::Ident("cfg".into()),
            Token::Punct('('),
            Token::Ident(what.into()),
            Token::Punct(')'),
            Token::Punct(']'),
        ]
    };
    let (cfg_test, cfg_doc) = (cfg("test"), cfg("doc"));
    let mut kept = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let starts = |attribute: &[Token]| {
            tokens.len() - i >= attribute.len()
                && attribute.iter().zip(&tokens[i..]).all(|(a, b)| a == *b)
        };
        if !starts(&cfg_test) && !starts(&cfg_doc) {
            kept.push(tokens[i]);
            i += 1;
            continue;
        }
        // Skip the item: up to its `;`, or to the brace closing its body.
        let mut depth = 0;
        i += cfg_test.len();
        while i < tokens.len() {
            match tokens[i] {
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        i += 1;
    }
    kept
}

/// Expands one `use` tree at `tokens[*i]` into full paths, each with the name it binds (none
/// for a glob or a `_` import).
fn use_tree(
    tokens: &[&Token],
    i: &mut usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let depth = prefix.len();
    loop {
        match tokens.get(*i) {
            Some(Token::Ident(word)) if word == "as" => {
                *i += 1;
                if let Some(Token::Ident(alias)) = tokens.get(*i)
                    && let Some(last) = out.last_mut()
                {
                    last.1 = (alias != "_").then(|| alias.clone());
                }
                *i += 1;
            }
            Some(Token::Ident(word)) => {
                if word == "self" && !prefix.is_empty() && tokens.get(*i + 1) != Some(&&Token::Path)
                {
                    out.push((prefix.clone(), prefix.last().cloned()));
                } else {
                    prefix.push(word.clone());
                    if tokens.get(*i + 1) != Some(&&Token::Path) {
                        out.push((prefix.clone(), Some(word.clone())));
                        prefix.pop();
                    }
                }
                *i += 1;
            }
            Some(Token::Path) => *i += 1,
            Some(Token::Punct('*')) => {
                out.push((prefix.clone(), None));
                *i += 1;
            }
            Some(Token::Punct('{')) => {
                *i += 1;
                let mut inner = prefix.clone();
                loop {
                    use_tree(tokens, i, &mut inner, out);
                    inner.truncate(prefix.len());
                    match tokens.get(*i) {
                        Some(Token::Punct(',')) => *i += 1,
                        _ => break,
                    }
                    if tokens.get(*i) == Some(&&Token::Punct('}')) {
                        break;
                    }
                }
                *i += 1; // the closing brace
            }
            Some(Token::Punct(',')) | Some(Token::Punct('}')) => {
                prefix.truncate(depth);
                return;
            }
            Some(Token::Punct(';')) | None => {
                prefix.truncate(depth);
                *i += 1;
                return;
            }
            Some(_) => *i += 1,
        }
    }
}

/// Import circles: strongly connected sets of more than one file, each sorted.
fn circles(krate: &Crate) -> Vec<Vec<Vec<String>>> {
    let graph = edges(krate);
    let nodes: Vec<&Vec<String>> = krate.files.keys().collect();
    let index: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let adjacency: Vec<Vec<usize>> = nodes
        .iter()
        .map(|m| {
            graph
                .get(*m)
                .map(|to| to.iter().map(|t| index[t]).collect())
                .unwrap_or_default()
        })
        .collect();
    let mut found: Vec<Vec<Vec<String>>> = strongly_connected(&adjacency)
        .into_iter()
        .filter(|set| set.len() > 1)
        .map(|set| {
            let mut files: Vec<Vec<String>> = set.iter().map(|&i| nodes[i].clone()).collect();
            files.sort();
            files
        })
        .collect();
    found.sort();
    found
}

/// Tarjan's algorithm, iterative.
fn strongly_connected(adjacency: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adjacency.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut sets = Vec::new();
    let mut counter = 0;
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0)];
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if *next == 0 {
                index[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adjacency[v].get(*next) {
                *next += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut set = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    set.push(w);
                    if w == v {
                        break;
                    }
                }
                sets.push(set);
            }
        }
    }
    sets
}

/// File-to-file edges of one crate, keyed by module path.
fn edges(krate: &Crate) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut paths = Vec::new();
    let mut aliases = BTreeMap::new();
    let mut children = BTreeMap::new();
    for (module, tokens) in &krate.sources {
        let scan = scan(tokens);
        let within = |inline: Vec<String>| [module.clone(), inline].concat();
        for (inline, path) in scan.paths {
            paths.push((module.clone(), within(inline), path));
        }
        aliases.extend(scan.aliases.into_iter().map(|(k, v)| (within(k), v)));
        children.extend(scan.children.into_iter().map(|(k, v)| (within(k), v)));
    }
    let resolver = Resolver {
        krate,
        aliases: &aliases,
        children: &children,
    };
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = krate
        .files
        .keys()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for (file, module, path) in paths {
        let defining = resolver
            .absolute(&module, &path)
            .and_then(|a| resolver.defining_file(&a, 0));
        if let Some(defining) = defining.filter(|d| *d != file) {
            graph.get_mut(&file).unwrap().insert(defining);
        }
    }
    graph
}

struct Resolver<'a> {
    krate: &'a Crate,
    aliases: &'a BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    children: &'a BTreeMap<Vec<String>, BTreeSet<String>>,
}

impl Resolver<'_> {
    /// A path as written in `module`, made absolute (segments below the crate root), or none
    /// for a path into another crate or a local item that is not a module.
    fn absolute(&self, module: &[String], path: &[String]) -> Option<Vec<String>> {
        self.absolute_within(module, path, 0)
    }

    fn absolute_within(
        &self,
        module: &[String],
        path: &[String],
        hops: usize,
    ) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => {
                let mut base = module.to_vec();
                let mut rest = rest;
                base.pop()?;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                return Some(base);
            }
            name if self.children.get(module).is_some_and(|c| c.contains(name)) => {
                let mut base = module.to_vec();
                base.push(name.to_string());
                base
            }
            // An import (`use glam;` names an outside crate by itself: hence the hop limit).
            name if hops < 8 => {
                let alias = self.aliases.get(module)?.get(name)?;
                let mut resolved = self.absolute_within(module, alias, hops + 1)?;
                resolved.extend(rest.iter().cloned());
                return Some(resolved);
            }
            _ => return None,
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file defining the item at an absolute path, following re-exports.
    fn defining_file(&self, path: &[String], hops: usize) -> Option<Vec<String>> {
        let file = (0..=path.len())
            .rev()
            .map(|n| &path[..n])
            .find(|prefix| self.krate.files.contains_key(*prefix))?
            .to_vec();
        let Some(item) = path.get(file.len()) else {
            return Some(file);
        };
        let target = self.aliases.get(&file).and_then(|a| a.get(item));
        if let Some(target) = target.filter(|_| hops < 8) {
            let defining = self.absolute(&file, target).and_then(|mut absolute| {
                absolute.extend(path[file.len() + 1..].iter().cloned());
                self.defining_file(&absolute, hops + 1)
            });
            // None for a re-export from another crate: the item is not defined in this one.
            return defining;
        }
        Some(file)
    }
}
