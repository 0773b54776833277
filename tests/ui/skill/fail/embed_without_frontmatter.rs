fn main() {
    let _skill: phantom::Skill = phantom::embed_skill!("../../../../tests/ui/skill/fixtures/no-frontmatter");
}
