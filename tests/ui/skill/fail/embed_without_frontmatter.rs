fn main() {
    let _skill: phantom::skills::Skill = phantom::embed_skill!("../../../../tests/ui/skill/fixtures/no-frontmatter");
}
