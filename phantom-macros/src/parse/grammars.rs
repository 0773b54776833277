//! The attribute docs (`phantom/src/docs/<attr>.md`, the rustdoc of each attribute) agree with
//! the key tables the parsers dispatch on: every key a parser accepts is in its grammar, and a
//! grammar lists no key its parser refuses.

use std::collections::BTreeSet;

use super::keys::Keys;

/// The keys only `#[task_handler]` accepts (on a `#[tool]` they are an error saying so).
const TASK_KEYS: &[&str] = &["mode", "ttl", "poll_interval", "prepare"];

fn doc(attr: &str) -> String {
    let path = format!(
        "{}/../phantom/src/docs/{attr}.md",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `text` block under `# Grammar`.
fn grammar(doc: &str) -> &str {
    let start = doc.find("# Grammar").expect("a `# Grammar` section");
    let block = &doc[start..];
    let open = block.find("```text\n").expect("a ```text block") + "```text\n".len();
    let len = block[open..].find("\n```").expect("the block's end");
    &block[open..open + len]
}

/// The lines of production `name` (`name = …`, then its indented continuation lines).
fn production(grammar: &str, name: &str) -> String {
    let mut lines = grammar.lines().skip_while(|l| {
        let mut words = l.split_whitespace();
        !(words.next() == Some(name) && words.next().is_some_and(|w| w.starts_with('=')))
    });
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no production `{name}` in:\n{grammar}"));
    let rest = lines.take_while(|l| l.starts_with(char::is_whitespace));
    std::iter::once(first)
        .chain(rest)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The keys a production offers: each quoted word that starts an alternative (right after `=`
/// or `|`, an opening parenthesis aside). Quoted words inside comments (`(… "sampling")`) follow
/// other text and are not keys.
fn keys(production: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut last = ' ';
    let mut chars = production.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut token = String::new();
                let mut escaped = false;
                for c in chars.by_ref() {
                    match c {
                        '"' if !escaped => break,
                        '\\' => escaped = true,
                        c => {
                            escaped = false;
                            token.push(c);
                        }
                    }
                }
                if matches!(last, '=' | '|')
                    && !token.is_empty()
                    && token.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                {
                    found.insert(token);
                }
                last = '"';
            }
            '(' => {}
            c if c.is_whitespace() => {}
            c => last = c,
        }
    }
    found
}

fn table<T>(keys: &Keys<T>) -> BTreeSet<String> {
    keys.keys.iter().map(|k| k.name.to_owned()).collect()
}

#[track_caller]
fn agree(what: &str, documented: &BTreeSet<String>, parsed: &BTreeSet<String>) {
    let undocumented: Vec<_> = parsed.difference(documented).collect();
    let unparsed: Vec<_> = documented.difference(parsed).collect();
    assert!(
        undocumented.is_empty() && unparsed.is_empty(),
        "{what}: the parser accepts {undocumented:?} that the grammar leaves out, and the grammar \
         lists {unparsed:?} that the parser refuses"
    );
}

#[test]
fn the_tool_grammar_lists_every_tool_key_but_the_task_ones() {
    let tool = doc("tool");
    let grammar = grammar(&tool);
    let mut parsed = table(&super::tool::KEYS);
    for key in TASK_KEYS {
        assert!(parsed.remove(*key), "`{key}` is a key of the tool table");
    }
    agree("#[tool]", &keys(&production(grammar, "key")), &parsed);
    agree(
        "#[arg] in the #[tool] grammar",
        &keys(&production(grammar, "argkey")),
        &table(&super::arg::KEYS),
    );
}

#[test]
fn the_task_handler_grammar_lists_its_keys_and_every_tool_key() {
    let task = doc("task_handler");
    let key = production(grammar(&task), "key");
    let own = keys(&key);
    let task_keys: BTreeSet<String> = TASK_KEYS.iter().map(|k| (*k).to_owned()).collect();
    agree("#[task_handler]'s own keys", &own, &task_keys);
    // `| any key of #[tool] ; (name, title, …)`: the parenthesis names them all.
    let marker = "any key of #[tool]";
    let after = &key[key.find(marker).expect("`any key of #[tool]`") + marker.len()..];
    let open = after.find('(').expect("the list of tool keys") + 1;
    let close = open + after[open..].find(')').expect("its end");
    let listed: BTreeSet<String> = after[open..close]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    let tool_keys: BTreeSet<String> = table(&super::tool::KEYS)
        .difference(&task_keys)
        .cloned()
        .collect();
    agree(
        "#[task_handler]'s list of #[tool] keys",
        &listed,
        &tool_keys,
    );
}

#[test]
fn the_prompt_resource_and_router_grammars_list_their_keys() {
    agree(
        "#[prompt]",
        &keys(&production(grammar(&doc("prompt")), "key")),
        &table(&super::prompt::KEYS),
    );
    let resource = doc("resource");
    agree(
        "#[resource]",
        &keys(&production(grammar(&resource), "key")),
        &table(&super::resource::KEYS),
    );
    agree(
        "#[resource(csp(…))]",
        &keys(&production(grammar(&resource), "cspkey")),
        &table(&super::resource::CSP_KEYS),
    );
    agree(
        "#[skill]",
        &keys(&production(grammar(&doc("skill")), "key")),
        &table(&super::skill::KEYS),
    );
    agree(
        "#[mcp_router]",
        &keys(&production(grammar(&doc("mcp_router")), "key")),
        &table(&super::router::KEYS),
    );
}

#[test]
fn the_complete_keys_are_written_where_completion_applies() {
    for attr in ["prompt", "resource"] {
        let text = doc(attr);
        for key in table(&super::complete::KEYS) {
            assert!(
                text.contains(&format!("#[complete({key} = ")),
                "the #[{attr}] docs show `#[complete({key} = …)]`"
            );
        }
    }
}

#[test]
fn the_extraction_reads_keys_and_skips_comments() {
    let g = r#"key = "name" "=" STRING   (default: "other")
      | "mode" "=" ( "\"optional\"" | "\"required\"" )
      | "csp" "(" cspkey ")" | "size" "=" INT ;
next = "not_this" ;"#;
    let found: Vec<String> = keys(&production(g, "key")).into_iter().collect();
    assert_eq!(found, ["csp", "mode", "name", "size"]);
}
