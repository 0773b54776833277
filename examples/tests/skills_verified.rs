//! The client checks skill files against their listing (SEP-2640) with the `studies` example's
//! own skill (`examples/skills/study-review`, embedded with digests computed at build time),
//! over stdio: the genuine files pass, in both eras.

use phantom::client::{Client, Era};
use phantom::protocol::SkillFiles;

#[tokio::test]
async fn the_studies_skill_loads_and_its_files_verify() {
    for era in [Era::Legacy, Era::Modern] {
        let client = Client::stdio(env!("CARGO_BIN_EXE_studies"), ["--stdio"])
            .era(era)
            .connect()
            .await
            .expect("studies starts and connects");
        let skills = client.list_skills(None).await.expect("skills/list");
        assert!(
            !skills.items.is_empty(),
            "{era:?}: the catalogue lists a skill"
        );
        for entry in &skills.items {
            let loaded = client.load_skill(entry).await.expect("SKILL.md verifies");
            assert_eq!(loaded.frontmatter["name"], "study-review", "{era:?}");
            assert_eq!(
                loaded.frontmatter["metadata"]["audience"], "reviewers",
                "{era:?}: a nested frontmatter key"
            );
            let SkillFiles::Files(files) = &entry.resources else {
                panic!("{era:?}: an embedded skill lists its files");
            };
            for file in files {
                let read = client
                    .read_skill_file(entry, &file.uri)
                    .await
                    .unwrap_or_else(|e| panic!("{era:?}: {} verifies: {e}", file.uri));
                assert_eq!(read.uri, file.uri, "{era:?}");
            }
        }
        client.close().await;
    }
}
