//! Paginated lists: cursors chain to the end, in a stable order, without duplicates.

use phantom::Config;
use phantom::Server;
use phantom::testing::Client;
use serde_json::{Value, json};

use crate::fixture::{Many, legacy_paged};

/// The four paginated methods: (method, result key, item field naming it, expected pages).
const LISTS: [(&str, &str, &str, [&[&str]; 3]); 4] = [
    (
        "tools/list",
        "tools",
        "name",
        [&["t1", "t2"], &["t3", "t4"], &["t5"]],
    ),
    (
        "prompts/list",
        "prompts",
        "name",
        [&["p1", "p2"], &["p3", "p4"], &["p5"]],
    ),
    (
        "resources/list",
        "resources",
        "uri",
        [
            &["many://c/1", "many://c/2"],
            &["many://c/3", "many://c/4"],
            &["many://c/5"],
        ],
    ),
    (
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
        [
            &["many://x1/{id}", "many://x2/{id}"],
            &["many://x3/{id}", "many://x4/{id}"],
            &["many://x5/{id}"],
        ],
    ),
];

/// Walks every page of a list; returns the items of each page and the cursors used.
async fn walk<S: Server>(
    client: &mut Client<S>,
    method: &str,
    key: &str,
    field: &str,
) -> (Vec<Vec<String>>, Vec<String>) {
    let mut pages = Vec::new();
    let mut cursors = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor
            .as_ref()
            .map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let response = client.request(method, params).await;
        let result = response.result();
        let items: Vec<String> = result[key]
            .as_array()
            .unwrap_or_else(|| panic!("no `{key}` in {result}"))
            .iter()
            .map(|item| item[field].as_str().expect("a string field").to_owned())
            .collect();
        pages.push(items);
        match result.get("nextCursor") {
            None => break,
            Some(Value::String(c)) => {
                cursors.push(c.clone());
                cursor = Some(c.clone());
            }
            Some(other) => panic!("nextCursor is not a string: {other}"),
        }
        assert!(pages.len() < 10, "{method}: pagination does not end");
    }
    (pages, cursors)
}

fn expected(pages: &[&[&str]; 3]) -> Vec<Vec<String>> {
    pages
        .iter()
        .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
        .collect()
}

#[tokio::test]
async fn legacy_pages_chain_to_the_end_without_duplicates() {
    let mut client = legacy_paged(Many, 2).await;
    for (method, key, field, want) in LISTS {
        let (pages, cursors) = walk(&mut client, method, key, field).await;
        assert_eq!(pages, expected(&want), "{method}");
        let mut all: Vec<&String> = pages.iter().flatten().collect();
        let count = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), count, "{method}: duplicates across pages");
        assert_eq!(cursors.len(), 2, "{method}");
        // Deterministic: a second walk gives the same pages and cursors.
        assert_eq!(
            walk(&mut client, method, key, field).await,
            (pages, cursors),
            "{method}"
        );
    }
}

#[tokio::test]
async fn modern_pages_chain_to_the_end_with_caching_hints() {
    let mut client = Client::modern_with_config(Many, Config::default().with_page_size(2));
    for (method, key, field, want) in LISTS {
        let (pages, _) = walk(&mut client, method, key, field).await;
        assert_eq!(pages, expected(&want), "{method}");
        let first = client.request(method, json!({})).await;
        let result = first.result();
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["cacheScope"], "private");
        let next = result["nextCursor"]
            .as_str()
            .expect("a next cursor")
            .to_owned();
        let second = client.request(method, json!({"cursor": next})).await;
        assert_eq!(
            second.result()["cacheScope"],
            result["cacheScope"],
            "every page has the same scope"
        );
        assert_eq!(second.result()["ttlMs"], 0);
    }
}

#[tokio::test]
async fn the_default_page_holds_everything() {
    let mut client = Client::legacy(Many).await;
    for (method, key, field, want) in LISTS {
        let (pages, cursors) = walk(&mut client, method, key, field).await;
        assert_eq!(pages, vec![expected(&want).concat()], "{method}");
        assert!(cursors.is_empty());
    }
}

#[tokio::test]
async fn invalid_cursor_is_invalid_params() {
    let mut legacy = legacy_paged(Many, 2).await;
    let mut modern = Client::modern_with_config(Many, Config::default().with_page_size(2));
    for (method, ..) in LISTS {
        for cursor in [json!("not-a-cursor"), json!("dDA"), json!(""), json!("%%%")] {
            for response in [
                legacy.request(method, json!({"cursor": cursor})).await,
                modern.request(method, json!({"cursor": cursor})).await,
            ] {
                response.assert_error(-32602);
                assert_eq!(
                    response.error()["data"],
                    json!({"cursor": cursor}),
                    "{method}"
                );
            }
        }
        legacy
            .request(method, json!({"cursor": 7}))
            .await
            .assert_error(-32602);
    }
}

#[tokio::test]
async fn a_cursor_of_one_list_is_invalid_for_another() {
    let mut client = legacy_paged(Many, 2).await;
    let tools = client.list_tools(None).await;
    let cursor = tools.result()["nextCursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        client
            .request(method, json!({"cursor": cursor}))
            .await
            .assert_error(-32602);
    }
}
