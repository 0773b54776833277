//! Skills (`#[skill]`, the Skills extension): listing with digests that match the bytes read,
//! `skills/get` for listed and unlisted skills, directory reads, canonical URIs only, allow-lists,
//! an overridden `list_skills`, and the capability in both eras.

use std::sync::{Arc, Mutex};

use phantom::prelude::*;
use phantom::testing::Client;
use phantom::{Cursor, skills::Skill};
use serde_json::{Value, json};
use sha2::Digest as _;

/// Two concrete skills and one per study.
#[derive(Clone, Default)]
struct Library;

#[mcp_router(name = "library", version = "1.0.0")]
impl Library {
    /// Git habits.
    #[skill("skill://library/git-workflow")]
    async fn git(&self) -> Skill {
        Skill::new("git-workflow", "How we branch, commit and review")
            .body("# Git\n\nSee `docs/branching.md`.\n")
            .frontmatter("license", "MIT")
            .file("docs/branching.md", "Branch from main.\n")
            .file("docs/deep/tags.md", "Tag releases.\n")
            .file("logo.bin", vec![0u8, 159, 146, 150])
    }

    /// Deploys.
    #[skill("skill://library/ops/deploy")]
    fn deploy(&self) -> Skill {
        Skill::new("deploy", "Ship a release").cache(
            std::time::Duration::from_secs(60),
            phantom::CacheScope::Public,
        )
    }

    /// One review skill per study below 100.
    #[skill("skill://studies/<id>/study-review")]
    async fn review(&self, id: u32) -> Option<Skill> {
        (id < 100).then(|| Skill::new("study-review", format!("Review study {id}")))
    }

    /// Misnamed on purpose: its frontmatter says `other`.
    #[skill("skill://library/misnamed")]
    async fn misnamed(&self) -> Skill {
        Skill::new("other", "Wrong name")
    }

    /// `x-skills: a,b` allows only those skills.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        if let Some(only) = request.header("x-skills") {
            session.allowed_skills = Session::allow(only.split(','));
        }
        Connect::Ok
    }
}

fn sha256(bytes: &[u8]) -> String {
    let hash = sha2::Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The bytes `resources/read` returns for a file (text or base64 blob).
async fn read_bytes(client: &mut Client<Library>, uri: &str) -> Vec<u8> {
    let read = client.read_resource(uri).await;
    let contents = &read.result()["contents"][0];
    assert_eq!(contents["uri"], uri, "{contents}");
    match (contents["text"].as_str(), contents["blob"].as_str()) {
        (Some(text), _) => text.as_bytes().to_vec(),
        (None, Some(blob)) => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .expect("base64")
        }
        _ => panic!("no text or blob in {contents}"),
    }
}

fn uris(list: &[Value]) -> Vec<&str> {
    list.iter()
        .map(|s| s["uri"].as_str().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn every_listed_digest_and_size_matches_the_bytes_read_in_both_eras() {
    for mut client in [Client::legacy(Library).await, Client::modern(Library)] {
        let listed = client.request("skills/list", json!({})).await;
        let skills = listed.result()["skills"]
            .as_array()
            .expect("skills")
            .clone();
        // The default list: routes without parameters; the misnamed one is left out.
        assert_eq!(
            uris(&skills),
            [
                "skill://library/git-workflow/SKILL.md",
                "skill://library/ops/deploy/SKILL.md"
            ]
        );
        let git = &skills[0];
        assert_eq!(
            git["frontmatter"],
            json!({"name": "git-workflow", "description": "How we branch, commit and review", "license": "MIT"})
        );
        let files = git["resources"].as_array().expect("a manifest");
        assert_eq!(files.len(), 4, "{git}");
        for file in files {
            let uri = file["uri"].as_str().expect("uri");
            let bytes = read_bytes(&mut client, uri).await;
            assert_eq!(file["digest"], sha256(&bytes), "{uri}");
            assert_eq!(file["size"], bytes.len(), "{uri}");
        }
        // SKILL.md starts with its frontmatter, as listed.
        let md = read_bytes(&mut client, "skill://library/git-workflow/SKILL.md").await;
        let md = String::from_utf8(md).expect("UTF-8");
        assert!(
            md.starts_with("---\nname: \"git-workflow\"\ndescription: \"How we branch, commit and review\"\nlicense: \"MIT\"\n---\n"),
            "{md}"
        );
    }
}

#[tokio::test]
async fn skills_get_answers_for_unlisted_skills_and_refuses_unknown_ones() {
    let mut client = Client::legacy(Library).await;
    let get = |uri: &str| json!({ "uri": uri });
    let review = client
        .request("skills/get", get("skill://studies/7/study-review/SKILL.md"))
        .await;
    assert_eq!(
        review.result()["skill"]["frontmatter"]["description"],
        "Review study 7"
    );
    for unknown in [
        "skill://studies/700/study-review/SKILL.md",
        "skill://studies/x/nothing/SKILL.md",
    ] {
        let refused = client.request("skills/get", get(unknown)).await;
        refused.assert_error(-32602);
        assert_eq!(refused.error()["data"]["uri"], unknown);
    }
    // A frontmatter name other than the URI's last segment is an internal error.
    client
        .request("skills/get", get("skill://library/misnamed/SKILL.md"))
        .await
        .assert_error(-32603);
    // Not a SKILL.md URI.
    client
        .request("skills/get", get("skill://library/git-workflow"))
        .await
        .assert_error(-32602);
}

#[tokio::test]
async fn non_canonical_uris_are_refused_not_looked_up() {
    let mut client = Client::legacy(Library).await;
    for uri in [
        "skill://library/git-workflow/SKILL.md/",
        "skill://library//git-workflow/SKILL.md",
        "skill://library/ops/../git-workflow/SKILL.md",
        "skill://library/git-workflow/./SKILL.md",
        "skill://library/%67it-workflow/SKILL.md",
        "skill://library/git-workflow/SKILL.md?v=2",
    ] {
        let got = client.request("skills/get", json!({ "uri": uri })).await;
        got.assert_error(-32602);
        assert!(
            got.error()["message"]
                .as_str()
                .is_some_and(|m| m.contains("not canonical")),
            "{uri}: {}",
            got.error()
        );
        let read = client.read_resource(uri).await;
        read.assert_error(-32602);
    }
}

#[tokio::test]
async fn directory_reads_list_direct_children_and_subdirectories() {
    let mut client = Client::modern(Library);
    let read = |uri: &str| json!({ "uri": uri });
    let root = client
        .request(
            "resources/directory/read",
            read("skill://library/git-workflow"),
        )
        .await;
    let entries = root.result()["resources"]
        .as_array()
        .expect("resources")
        .clone();
    assert_eq!(
        uris(&entries),
        [
            "skill://library/git-workflow/SKILL.md",
            "skill://library/git-workflow/logo.bin",
            "skill://library/git-workflow/docs"
        ]
    );
    assert_eq!(entries[0]["name"], "git-workflow");
    assert_eq!(entries[0]["mimeType"], "text/markdown");
    assert_eq!(entries[2]["mimeType"], "inode/directory");
    let docs = client
        .request(
            "resources/directory/read",
            read("skill://library/git-workflow/docs"),
        )
        .await;
    let entries = docs.result()["resources"]
        .as_array()
        .expect("resources")
        .clone();
    assert_eq!(
        uris(&entries),
        [
            "skill://library/git-workflow/docs/branching.md",
            "skill://library/git-workflow/docs/deep"
        ]
    );
    // A file, or nothing, is not a directory.
    for not_dir in [
        "skill://library/git-workflow/SKILL.md",
        "skill://library/git-workflow/nope",
        "skill://library/unknown",
    ] {
        client
            .request("resources/directory/read", read(not_dir))
            .await
            .assert_error(-32602);
    }
}

#[tokio::test]
async fn a_skill_s_cache_hints_reach_2026_07_28_results() {
    let mut client = Client::modern(Library);
    let deploy = json!({"uri": "skill://library/ops/deploy/SKILL.md"});
    let got = client.request("skills/get", deploy).await;
    assert_eq!(got.result()["ttlMs"], 60_000);
    assert_eq!(got.result()["cacheScope"], "public");
    // A page with a skill that sets none gets the server's hints.
    let listed = client.request("skills/list", json!({})).await;
    assert_eq!(listed.result()["ttlMs"], 0);
    assert_eq!(listed.result()["cacheScope"], "private");
    // Under a skill allow-list, the hints are private.
    let mut limited = Client::builder(Library)
        .header("x-skills", "deploy")
        .modern();
    let listed = limited.request("skills/list", json!({})).await;
    assert_eq!(listed.result()["ttlMs"], 60_000, "{}", listed.result());
    assert_eq!(listed.result()["cacheScope"], "private");
}

#[tokio::test]
async fn an_allow_listed_session_sees_only_its_skills() {
    let mut client = Client::builder(Library)
        .header("x-skills", "deploy")
        .legacy()
        .await;
    let listed = client.request("skills/list", json!({})).await;
    let skills = listed.result()["skills"]
        .as_array()
        .expect("skills")
        .clone();
    assert_eq!(uris(&skills), ["skill://library/ops/deploy/SKILL.md"]);
    client
        .request(
            "skills/get",
            json!({"uri": "skill://library/git-workflow/SKILL.md"}),
        )
        .await
        .assert_error(-32602);
    client
        .read_resource("skill://library/git-workflow/docs/branching.md")
        .await
        .assert_error(-32002);
}

/// A router whose `list_skills` pages study skills and records the cursors it is given.
#[derive(Clone, Default)]
struct Paged {
    cursors: Arc<Mutex<Vec<Option<String>>>>,
}

#[mcp_router(name = "paged", version = "1.0.0")]
impl Paged {
    /// One per study.
    #[skill("skill://studies/<id>/study-review")]
    async fn review(&self, id: u32) -> Option<Skill> {
        (id != 3).then(|| Skill::new("study-review", format!("Review study {id}")).dynamic())
    }

    /// Two studies per page; study 3 serves no skill and is left out.
    async fn list_skills(
        &self,
        cursor: Option<Cursor>,
        _session: &Session,
    ) -> Result<Page<String>, Error> {
        self.cursors
            .lock()
            .expect("cursors")
            .push(cursor.as_ref().map(|c| c.0.clone()));
        let start: u32 = cursor
            .map_or(Ok(1), |c| c.0.parse())
            .map_err(|_| Error::invalid_params("bad cursor"))?;
        let items = (start..start + 2)
            .map(|id| format!("skill://studies/{id}/study-review/SKILL.md"))
            .collect();
        Ok(Page {
            items,
            next_cursor: (start < 5).then(|| (start + 2).to_string()),
        })
    }
}

#[tokio::test]
async fn an_overridden_list_skills_is_called_with_the_cursor() {
    let paged = Paged::default();
    let mut client = Client::modern(paged.clone());
    let first = client.request("skills/list", json!({})).await;
    assert_eq!(
        uris(first.result()["skills"].as_array().expect("skills")),
        [
            "skill://studies/1/study-review/SKILL.md",
            "skill://studies/2/study-review/SKILL.md"
        ]
    );
    assert_eq!(first.result()["skills"][0]["resources"], "dynamic");
    assert_eq!(first.result()["nextCursor"], "3");
    let second = client.request("skills/list", json!({"cursor": "3"})).await;
    assert_eq!(
        uris(second.result()["skills"].as_array().expect("skills")),
        ["skill://studies/4/study-review/SKILL.md"]
    );
    assert_eq!(
        *paged.cursors.lock().expect("cursors"),
        [None, Some("3".to_owned())]
    );
}

#[tokio::test]
async fn the_skills_capability_is_advertised_in_both_eras_only_with_skills() {
    let mut legacy = Client::builder(Library).uninitialized();
    let init = legacy.initialize("2025-11-25").await;
    let caps = &init.result()["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(caps["resources"].is_object(), "{caps}");
    let mut modern = Client::modern(Library);
    let discover = modern.request("server/discover", json!({})).await;
    assert_eq!(
        discover.result()["capabilities"]["extensions"]["io.modelcontextprotocol/skills"]["directoryRead"],
        true
    );
    let mut plain = Client::modern(crate::fixture::Lab);
    let discover = plain.request("server/discover", json!({})).await;
    assert!(
        discover.result()["capabilities"]
            .get("extensions")
            .is_none(),
        "{}",
        discover.result()
    );
}

/// A skill directory compiled in with `embed_skill!`.
#[derive(Clone)]
struct Embedded;

#[mcp_router(name = "embedded", version = "1.0.0")]
impl Embedded {
    /// The studies example's review skill, from its directory.
    #[skill("skill://studies/study-review")]
    fn review(&self) -> Skill {
        phantom::embed_skill!("../examples/skills/study-review")
    }
}

#[tokio::test]
async fn an_embedded_skill_lists_compile_time_digests_of_the_bytes_it_serves() {
    let mut client = Client::legacy(Embedded).await;
    let got = client
        .request(
            "skills/get",
            json!({"uri": "skill://studies/study-review/SKILL.md"}),
        )
        .await;
    let skill = &got.result()["skill"];
    assert_eq!(skill["frontmatter"]["name"], "study-review");
    assert_eq!(skill["frontmatter"]["license"], "MIT");
    assert_eq!(
        skill["frontmatter"]["metadata"],
        json!({"audience": "reviewers"})
    );
    let on_disk = std::fs::read("../examples/skills/study-review/SKILL.md").expect("SKILL.md");
    let files = skill["resources"].as_array().expect("a manifest").clone();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["digest"], sha256(&on_disk));
    for file in &files {
        let uri = file["uri"].as_str().expect("uri");
        let read = client.read_resource(uri).await;
        let text = read.result()["contents"][0]["text"]
            .as_str()
            .expect("text")
            .to_owned();
        assert_eq!(file["digest"], sha256(text.as_bytes()), "{uri}");
        assert_eq!(file["size"], text.len(), "{uri}");
    }
}
