//! A router with 200 tools and 200 resource templates, for the dispatch benchmark.

use phantom::prelude::*;

#[derive(Clone)]
pub(crate) struct Big;

#[mcp_router(name = "big", version = "1.0.0")]
impl Big {
    /// Tool 0.
    #[tool]
    async fn tool_0(&self, text: String) -> String {
        text
    }

    /// Tool 1.
    #[tool]
    async fn tool_1(&self, text: String) -> String {
        text
    }

    /// Tool 2.
    #[tool]
    async fn tool_2(&self, text: String) -> String {
        text
    }

    /// Tool 3.
    #[tool]
    async fn tool_3(&self, text: String) -> String {
        text
    }

    /// Tool 4.
    #[tool]
    async fn tool_4(&self, text: String) -> String {
        text
    }

    /// Tool 5.
    #[tool]
    async fn tool_5(&self, text: String) -> String {
        text
    }

    /// Tool 6.
    #[tool]
    async fn tool_6(&self, text: String) -> String {
        text
    }

    /// Tool 7.
    #[tool]
    async fn tool_7(&self, text: String) -> String {
        text
    }

    /// Tool 8.
    #[tool]
    async fn tool_8(&self, text: String) -> String {
        text
    }

    /// Tool 9.
    #[tool]
    async fn tool_9(&self, text: String) -> String {
        text
    }

    /// Tool 10.
    #[tool]
    async fn tool_10(&self, text: String) -> String {
        text
    }

    /// Tool 11.
    #[tool]
    async fn tool_11(&self, text: String) -> String {
        text
    }

    /// Tool 12.
    #[tool]
    async fn tool_12(&self, text: String) -> String {
        text
    }

    /// Tool 13.
    #[tool]
    async fn tool_13(&self, text: String) -> String {
        text
    }

    /// Tool 14.
    #[tool]
    async fn tool_14(&self, text: String) -> String {
        text
    }

    /// Tool 15.
    #[tool]
    async fn tool_15(&self, text: String) -> String {
        text
    }

    /// Tool 16.
    #[tool]
    async fn tool_16(&self, text: String) -> String {
        text
    }

    /// Tool 17.
    #[tool]
    async fn tool_17(&self, text: String) -> String {
        text
    }

    /// Tool 18.
    #[tool]
    async fn tool_18(&self, text: String) -> String {
        text
    }

    /// Tool 19.
    #[tool]
    async fn tool_19(&self, text: String) -> String {
        text
    }

    /// Tool 20.
    #[tool]
    async fn tool_20(&self, text: String) -> String {
        text
    }

    /// Tool 21.
    #[tool]
    async fn tool_21(&self, text: String) -> String {
        text
    }

    /// Tool 22.
    #[tool]
    async fn tool_22(&self, text: String) -> String {
        text
    }

    /// Tool 23.
    #[tool]
    async fn tool_23(&self, text: String) -> String {
        text
    }

    /// Tool 24.
    #[tool]
    async fn tool_24(&self, text: String) -> String {
        text
    }

    /// Tool 25.
    #[tool]
    async fn tool_25(&self, text: String) -> String {
        text
    }

    /// Tool 26.
    #[tool]
    async fn tool_26(&self, text: String) -> String {
        text
    }

    /// Tool 27.
    #[tool]
    async fn tool_27(&self, text: String) -> String {
        text
    }

    /// Tool 28.
    #[tool]
    async fn tool_28(&self, text: String) -> String {
        text
    }

    /// Tool 29.
    #[tool]
    async fn tool_29(&self, text: String) -> String {
        text
    }

    /// Tool 30.
    #[tool]
    async fn tool_30(&self, text: String) -> String {
        text
    }

    /// Tool 31.
    #[tool]
    async fn tool_31(&self, text: String) -> String {
        text
    }

    /// Tool 32.
    #[tool]
    async fn tool_32(&self, text: String) -> String {
        text
    }

    /// Tool 33.
    #[tool]
    async fn tool_33(&self, text: String) -> String {
        text
    }

    /// Tool 34.
    #[tool]
    async fn tool_34(&self, text: String) -> String {
        text
    }

    /// Tool 35.
    #[tool]
    async fn tool_35(&self, text: String) -> String {
        text
    }

    /// Tool 36.
    #[tool]
    async fn tool_36(&self, text: String) -> String {
        text
    }

    /// Tool 37.
    #[tool]
    async fn tool_37(&self, text: String) -> String {
        text
    }

    /// Tool 38.
    #[tool]
    async fn tool_38(&self, text: String) -> String {
        text
    }

    /// Tool 39.
    #[tool]
    async fn tool_39(&self, text: String) -> String {
        text
    }

    /// Tool 40.
    #[tool]
    async fn tool_40(&self, text: String) -> String {
        text
    }

    /// Tool 41.
    #[tool]
    async fn tool_41(&self, text: String) -> String {
        text
    }

    /// Tool 42.
    #[tool]
    async fn tool_42(&self, text: String) -> String {
        text
    }

    /// Tool 43.
    #[tool]
    async fn tool_43(&self, text: String) -> String {
        text
    }

    /// Tool 44.
    #[tool]
    async fn tool_44(&self, text: String) -> String {
        text
    }

    /// Tool 45.
    #[tool]
    async fn tool_45(&self, text: String) -> String {
        text
    }

    /// Tool 46.
    #[tool]
    async fn tool_46(&self, text: String) -> String {
        text
    }

    /// Tool 47.
    #[tool]
    async fn tool_47(&self, text: String) -> String {
        text
    }

    /// Tool 48.
    #[tool]
    async fn tool_48(&self, text: String) -> String {
        text
    }

    /// Tool 49.
    #[tool]
    async fn tool_49(&self, text: String) -> String {
        text
    }

    /// Tool 50.
    #[tool]
    async fn tool_50(&self, text: String) -> String {
        text
    }

    /// Tool 51.
    #[tool]
    async fn tool_51(&self, text: String) -> String {
        text
    }

    /// Tool 52.
    #[tool]
    async fn tool_52(&self, text: String) -> String {
        text
    }

    /// Tool 53.
    #[tool]
    async fn tool_53(&self, text: String) -> String {
        text
    }

    /// Tool 54.
    #[tool]
    async fn tool_54(&self, text: String) -> String {
        text
    }

    /// Tool 55.
    #[tool]
    async fn tool_55(&self, text: String) -> String {
        text
    }

    /// Tool 56.
    #[tool]
    async fn tool_56(&self, text: String) -> String {
        text
    }

    /// Tool 57.
    #[tool]
    async fn tool_57(&self, text: String) -> String {
        text
    }

    /// Tool 58.
    #[tool]
    async fn tool_58(&self, text: String) -> String {
        text
    }

    /// Tool 59.
    #[tool]
    async fn tool_59(&self, text: String) -> String {
        text
    }

    /// Tool 60.
    #[tool]
    async fn tool_60(&self, text: String) -> String {
        text
    }

    /// Tool 61.
    #[tool]
    async fn tool_61(&self, text: String) -> String {
        text
    }

    /// Tool 62.
    #[tool]
    async fn tool_62(&self, text: String) -> String {
        text
    }

    /// Tool 63.
    #[tool]
    async fn tool_63(&self, text: String) -> String {
        text
    }

    /// Tool 64.
    #[tool]
    async fn tool_64(&self, text: String) -> String {
        text
    }

    /// Tool 65.
    #[tool]
    async fn tool_65(&self, text: String) -> String {
        text
    }

    /// Tool 66.
    #[tool]
    async fn tool_66(&self, text: String) -> String {
        text
    }

    /// Tool 67.
    #[tool]
    async fn tool_67(&self, text: String) -> String {
        text
    }

    /// Tool 68.
    #[tool]
    async fn tool_68(&self, text: String) -> String {
        text
    }

    /// Tool 69.
    #[tool]
    async fn tool_69(&self, text: String) -> String {
        text
    }

    /// Tool 70.
    #[tool]
    async fn tool_70(&self, text: String) -> String {
        text
    }

    /// Tool 71.
    #[tool]
    async fn tool_71(&self, text: String) -> String {
        text
    }

    /// Tool 72.
    #[tool]
    async fn tool_72(&self, text: String) -> String {
        text
    }

    /// Tool 73.
    #[tool]
    async fn tool_73(&self, text: String) -> String {
        text
    }

    /// Tool 74.
    #[tool]
    async fn tool_74(&self, text: String) -> String {
        text
    }

    /// Tool 75.
    #[tool]
    async fn tool_75(&self, text: String) -> String {
        text
    }

    /// Tool 76.
    #[tool]
    async fn tool_76(&self, text: String) -> String {
        text
    }

    /// Tool 77.
    #[tool]
    async fn tool_77(&self, text: String) -> String {
        text
    }

    /// Tool 78.
    #[tool]
    async fn tool_78(&self, text: String) -> String {
        text
    }

    /// Tool 79.
    #[tool]
    async fn tool_79(&self, text: String) -> String {
        text
    }

    /// Tool 80.
    #[tool]
    async fn tool_80(&self, text: String) -> String {
        text
    }

    /// Tool 81.
    #[tool]
    async fn tool_81(&self, text: String) -> String {
        text
    }

    /// Tool 82.
    #[tool]
    async fn tool_82(&self, text: String) -> String {
        text
    }

    /// Tool 83.
    #[tool]
    async fn tool_83(&self, text: String) -> String {
        text
    }

    /// Tool 84.
    #[tool]
    async fn tool_84(&self, text: String) -> String {
        text
    }

    /// Tool 85.
    #[tool]
    async fn tool_85(&self, text: String) -> String {
        text
    }

    /// Tool 86.
    #[tool]
    async fn tool_86(&self, text: String) -> String {
        text
    }

    /// Tool 87.
    #[tool]
    async fn tool_87(&self, text: String) -> String {
        text
    }

    /// Tool 88.
    #[tool]
    async fn tool_88(&self, text: String) -> String {
        text
    }

    /// Tool 89.
    #[tool]
    async fn tool_89(&self, text: String) -> String {
        text
    }

    /// Tool 90.
    #[tool]
    async fn tool_90(&self, text: String) -> String {
        text
    }

    /// Tool 91.
    #[tool]
    async fn tool_91(&self, text: String) -> String {
        text
    }

    /// Tool 92.
    #[tool]
    async fn tool_92(&self, text: String) -> String {
        text
    }

    /// Tool 93.
    #[tool]
    async fn tool_93(&self, text: String) -> String {
        text
    }

    /// Tool 94.
    #[tool]
    async fn tool_94(&self, text: String) -> String {
        text
    }

    /// Tool 95.
    #[tool]
    async fn tool_95(&self, text: String) -> String {
        text
    }

    /// Tool 96.
    #[tool]
    async fn tool_96(&self, text: String) -> String {
        text
    }

    /// Tool 97.
    #[tool]
    async fn tool_97(&self, text: String) -> String {
        text
    }

    /// Tool 98.
    #[tool]
    async fn tool_98(&self, text: String) -> String {
        text
    }

    /// Tool 99.
    #[tool]
    async fn tool_99(&self, text: String) -> String {
        text
    }

    /// Tool 100.
    #[tool]
    async fn tool_100(&self, text: String) -> String {
        text
    }

    /// Tool 101.
    #[tool]
    async fn tool_101(&self, text: String) -> String {
        text
    }

    /// Tool 102.
    #[tool]
    async fn tool_102(&self, text: String) -> String {
        text
    }

    /// Tool 103.
    #[tool]
    async fn tool_103(&self, text: String) -> String {
        text
    }

    /// Tool 104.
    #[tool]
    async fn tool_104(&self, text: String) -> String {
        text
    }

    /// Tool 105.
    #[tool]
    async fn tool_105(&self, text: String) -> String {
        text
    }

    /// Tool 106.
    #[tool]
    async fn tool_106(&self, text: String) -> String {
        text
    }

    /// Tool 107.
    #[tool]
    async fn tool_107(&self, text: String) -> String {
        text
    }

    /// Tool 108.
    #[tool]
    async fn tool_108(&self, text: String) -> String {
        text
    }

    /// Tool 109.
    #[tool]
    async fn tool_109(&self, text: String) -> String {
        text
    }

    /// Tool 110.
    #[tool]
    async fn tool_110(&self, text: String) -> String {
        text
    }

    /// Tool 111.
    #[tool]
    async fn tool_111(&self, text: String) -> String {
        text
    }

    /// Tool 112.
    #[tool]
    async fn tool_112(&self, text: String) -> String {
        text
    }

    /// Tool 113.
    #[tool]
    async fn tool_113(&self, text: String) -> String {
        text
    }

    /// Tool 114.
    #[tool]
    async fn tool_114(&self, text: String) -> String {
        text
    }

    /// Tool 115.
    #[tool]
    async fn tool_115(&self, text: String) -> String {
        text
    }

    /// Tool 116.
    #[tool]
    async fn tool_116(&self, text: String) -> String {
        text
    }

    /// Tool 117.
    #[tool]
    async fn tool_117(&self, text: String) -> String {
        text
    }

    /// Tool 118.
    #[tool]
    async fn tool_118(&self, text: String) -> String {
        text
    }

    /// Tool 119.
    #[tool]
    async fn tool_119(&self, text: String) -> String {
        text
    }

    /// Tool 120.
    #[tool]
    async fn tool_120(&self, text: String) -> String {
        text
    }

    /// Tool 121.
    #[tool]
    async fn tool_121(&self, text: String) -> String {
        text
    }

    /// Tool 122.
    #[tool]
    async fn tool_122(&self, text: String) -> String {
        text
    }

    /// Tool 123.
    #[tool]
    async fn tool_123(&self, text: String) -> String {
        text
    }

    /// Tool 124.
    #[tool]
    async fn tool_124(&self, text: String) -> String {
        text
    }

    /// Tool 125.
    #[tool]
    async fn tool_125(&self, text: String) -> String {
        text
    }

    /// Tool 126.
    #[tool]
    async fn tool_126(&self, text: String) -> String {
        text
    }

    /// Tool 127.
    #[tool]
    async fn tool_127(&self, text: String) -> String {
        text
    }

    /// Tool 128.
    #[tool]
    async fn tool_128(&self, text: String) -> String {
        text
    }

    /// Tool 129.
    #[tool]
    async fn tool_129(&self, text: String) -> String {
        text
    }

    /// Tool 130.
    #[tool]
    async fn tool_130(&self, text: String) -> String {
        text
    }

    /// Tool 131.
    #[tool]
    async fn tool_131(&self, text: String) -> String {
        text
    }

    /// Tool 132.
    #[tool]
    async fn tool_132(&self, text: String) -> String {
        text
    }

    /// Tool 133.
    #[tool]
    async fn tool_133(&self, text: String) -> String {
        text
    }

    /// Tool 134.
    #[tool]
    async fn tool_134(&self, text: String) -> String {
        text
    }

    /// Tool 135.
    #[tool]
    async fn tool_135(&self, text: String) -> String {
        text
    }

    /// Tool 136.
    #[tool]
    async fn tool_136(&self, text: String) -> String {
        text
    }

    /// Tool 137.
    #[tool]
    async fn tool_137(&self, text: String) -> String {
        text
    }

    /// Tool 138.
    #[tool]
    async fn tool_138(&self, text: String) -> String {
        text
    }

    /// Tool 139.
    #[tool]
    async fn tool_139(&self, text: String) -> String {
        text
    }

    /// Tool 140.
    #[tool]
    async fn tool_140(&self, text: String) -> String {
        text
    }

    /// Tool 141.
    #[tool]
    async fn tool_141(&self, text: String) -> String {
        text
    }

    /// Tool 142.
    #[tool]
    async fn tool_142(&self, text: String) -> String {
        text
    }

    /// Tool 143.
    #[tool]
    async fn tool_143(&self, text: String) -> String {
        text
    }

    /// Tool 144.
    #[tool]
    async fn tool_144(&self, text: String) -> String {
        text
    }

    /// Tool 145.
    #[tool]
    async fn tool_145(&self, text: String) -> String {
        text
    }

    /// Tool 146.
    #[tool]
    async fn tool_146(&self, text: String) -> String {
        text
    }

    /// Tool 147.
    #[tool]
    async fn tool_147(&self, text: String) -> String {
        text
    }

    /// Tool 148.
    #[tool]
    async fn tool_148(&self, text: String) -> String {
        text
    }

    /// Tool 149.
    #[tool]
    async fn tool_149(&self, text: String) -> String {
        text
    }

    /// Tool 150.
    #[tool]
    async fn tool_150(&self, text: String) -> String {
        text
    }

    /// Tool 151.
    #[tool]
    async fn tool_151(&self, text: String) -> String {
        text
    }

    /// Tool 152.
    #[tool]
    async fn tool_152(&self, text: String) -> String {
        text
    }

    /// Tool 153.
    #[tool]
    async fn tool_153(&self, text: String) -> String {
        text
    }

    /// Tool 154.
    #[tool]
    async fn tool_154(&self, text: String) -> String {
        text
    }

    /// Tool 155.
    #[tool]
    async fn tool_155(&self, text: String) -> String {
        text
    }

    /// Tool 156.
    #[tool]
    async fn tool_156(&self, text: String) -> String {
        text
    }

    /// Tool 157.
    #[tool]
    async fn tool_157(&self, text: String) -> String {
        text
    }

    /// Tool 158.
    #[tool]
    async fn tool_158(&self, text: String) -> String {
        text
    }

    /// Tool 159.
    #[tool]
    async fn tool_159(&self, text: String) -> String {
        text
    }

    /// Tool 160.
    #[tool]
    async fn tool_160(&self, text: String) -> String {
        text
    }

    /// Tool 161.
    #[tool]
    async fn tool_161(&self, text: String) -> String {
        text
    }

    /// Tool 162.
    #[tool]
    async fn tool_162(&self, text: String) -> String {
        text
    }

    /// Tool 163.
    #[tool]
    async fn tool_163(&self, text: String) -> String {
        text
    }

    /// Tool 164.
    #[tool]
    async fn tool_164(&self, text: String) -> String {
        text
    }

    /// Tool 165.
    #[tool]
    async fn tool_165(&self, text: String) -> String {
        text
    }

    /// Tool 166.
    #[tool]
    async fn tool_166(&self, text: String) -> String {
        text
    }

    /// Tool 167.
    #[tool]
    async fn tool_167(&self, text: String) -> String {
        text
    }

    /// Tool 168.
    #[tool]
    async fn tool_168(&self, text: String) -> String {
        text
    }

    /// Tool 169.
    #[tool]
    async fn tool_169(&self, text: String) -> String {
        text
    }

    /// Tool 170.
    #[tool]
    async fn tool_170(&self, text: String) -> String {
        text
    }

    /// Tool 171.
    #[tool]
    async fn tool_171(&self, text: String) -> String {
        text
    }

    /// Tool 172.
    #[tool]
    async fn tool_172(&self, text: String) -> String {
        text
    }

    /// Tool 173.
    #[tool]
    async fn tool_173(&self, text: String) -> String {
        text
    }

    /// Tool 174.
    #[tool]
    async fn tool_174(&self, text: String) -> String {
        text
    }

    /// Tool 175.
    #[tool]
    async fn tool_175(&self, text: String) -> String {
        text
    }

    /// Tool 176.
    #[tool]
    async fn tool_176(&self, text: String) -> String {
        text
    }

    /// Tool 177.
    #[tool]
    async fn tool_177(&self, text: String) -> String {
        text
    }

    /// Tool 178.
    #[tool]
    async fn tool_178(&self, text: String) -> String {
        text
    }

    /// Tool 179.
    #[tool]
    async fn tool_179(&self, text: String) -> String {
        text
    }

    /// Tool 180.
    #[tool]
    async fn tool_180(&self, text: String) -> String {
        text
    }

    /// Tool 181.
    #[tool]
    async fn tool_181(&self, text: String) -> String {
        text
    }

    /// Tool 182.
    #[tool]
    async fn tool_182(&self, text: String) -> String {
        text
    }

    /// Tool 183.
    #[tool]
    async fn tool_183(&self, text: String) -> String {
        text
    }

    /// Tool 184.
    #[tool]
    async fn tool_184(&self, text: String) -> String {
        text
    }

    /// Tool 185.
    #[tool]
    async fn tool_185(&self, text: String) -> String {
        text
    }

    /// Tool 186.
    #[tool]
    async fn tool_186(&self, text: String) -> String {
        text
    }

    /// Tool 187.
    #[tool]
    async fn tool_187(&self, text: String) -> String {
        text
    }

    /// Tool 188.
    #[tool]
    async fn tool_188(&self, text: String) -> String {
        text
    }

    /// Tool 189.
    #[tool]
    async fn tool_189(&self, text: String) -> String {
        text
    }

    /// Tool 190.
    #[tool]
    async fn tool_190(&self, text: String) -> String {
        text
    }

    /// Tool 191.
    #[tool]
    async fn tool_191(&self, text: String) -> String {
        text
    }

    /// Tool 192.
    #[tool]
    async fn tool_192(&self, text: String) -> String {
        text
    }

    /// Tool 193.
    #[tool]
    async fn tool_193(&self, text: String) -> String {
        text
    }

    /// Tool 194.
    #[tool]
    async fn tool_194(&self, text: String) -> String {
        text
    }

    /// Tool 195.
    #[tool]
    async fn tool_195(&self, text: String) -> String {
        text
    }

    /// Tool 196.
    #[tool]
    async fn tool_196(&self, text: String) -> String {
        text
    }

    /// Tool 197.
    #[tool]
    async fn tool_197(&self, text: String) -> String {
        text
    }

    /// Tool 198.
    #[tool]
    async fn tool_198(&self, text: String) -> String {
        text
    }

    /// Tool 199.
    #[tool]
    async fn tool_199(&self, text: String) -> String {
        text
    }

    /// Template 0.
    #[resource("bench:///area0/items/<id>/data")]
    async fn res_0(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 1.
    #[resource("bench:///area1/items/<id>/data")]
    async fn res_1(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 2.
    #[resource("bench:///area2/items/<id>/data")]
    async fn res_2(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 3.
    #[resource("bench:///area3/items/<id>/data")]
    async fn res_3(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 4.
    #[resource("bench:///area4/items/<id>/data")]
    async fn res_4(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 5.
    #[resource("bench:///area5/items/<id>/data")]
    async fn res_5(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 6.
    #[resource("bench:///area6/items/<id>/data")]
    async fn res_6(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 7.
    #[resource("bench:///area7/items/<id>/data")]
    async fn res_7(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 8.
    #[resource("bench:///area8/items/<id>/data")]
    async fn res_8(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 9.
    #[resource("bench:///area9/items/<id>/data")]
    async fn res_9(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 10.
    #[resource("bench:///area10/items/<id>/data")]
    async fn res_10(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 11.
    #[resource("bench:///area11/items/<id>/data")]
    async fn res_11(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 12.
    #[resource("bench:///area12/items/<id>/data")]
    async fn res_12(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 13.
    #[resource("bench:///area13/items/<id>/data")]
    async fn res_13(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 14.
    #[resource("bench:///area14/items/<id>/data")]
    async fn res_14(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 15.
    #[resource("bench:///area15/items/<id>/data")]
    async fn res_15(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 16.
    #[resource("bench:///area16/items/<id>/data")]
    async fn res_16(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 17.
    #[resource("bench:///area17/items/<id>/data")]
    async fn res_17(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 18.
    #[resource("bench:///area18/items/<id>/data")]
    async fn res_18(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 19.
    #[resource("bench:///area19/items/<id>/data")]
    async fn res_19(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 20.
    #[resource("bench:///area20/items/<id>/data")]
    async fn res_20(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 21.
    #[resource("bench:///area21/items/<id>/data")]
    async fn res_21(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 22.
    #[resource("bench:///area22/items/<id>/data")]
    async fn res_22(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 23.
    #[resource("bench:///area23/items/<id>/data")]
    async fn res_23(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 24.
    #[resource("bench:///area24/items/<id>/data")]
    async fn res_24(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 25.
    #[resource("bench:///area25/items/<id>/data")]
    async fn res_25(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 26.
    #[resource("bench:///area26/items/<id>/data")]
    async fn res_26(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 27.
    #[resource("bench:///area27/items/<id>/data")]
    async fn res_27(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 28.
    #[resource("bench:///area28/items/<id>/data")]
    async fn res_28(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 29.
    #[resource("bench:///area29/items/<id>/data")]
    async fn res_29(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 30.
    #[resource("bench:///area30/items/<id>/data")]
    async fn res_30(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 31.
    #[resource("bench:///area31/items/<id>/data")]
    async fn res_31(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 32.
    #[resource("bench:///area32/items/<id>/data")]
    async fn res_32(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 33.
    #[resource("bench:///area33/items/<id>/data")]
    async fn res_33(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 34.
    #[resource("bench:///area34/items/<id>/data")]
    async fn res_34(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 35.
    #[resource("bench:///area35/items/<id>/data")]
    async fn res_35(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 36.
    #[resource("bench:///area36/items/<id>/data")]
    async fn res_36(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 37.
    #[resource("bench:///area37/items/<id>/data")]
    async fn res_37(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 38.
    #[resource("bench:///area38/items/<id>/data")]
    async fn res_38(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 39.
    #[resource("bench:///area39/items/<id>/data")]
    async fn res_39(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 40.
    #[resource("bench:///area40/items/<id>/data")]
    async fn res_40(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 41.
    #[resource("bench:///area41/items/<id>/data")]
    async fn res_41(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 42.
    #[resource("bench:///area42/items/<id>/data")]
    async fn res_42(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 43.
    #[resource("bench:///area43/items/<id>/data")]
    async fn res_43(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 44.
    #[resource("bench:///area44/items/<id>/data")]
    async fn res_44(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 45.
    #[resource("bench:///area45/items/<id>/data")]
    async fn res_45(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 46.
    #[resource("bench:///area46/items/<id>/data")]
    async fn res_46(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 47.
    #[resource("bench:///area47/items/<id>/data")]
    async fn res_47(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 48.
    #[resource("bench:///area48/items/<id>/data")]
    async fn res_48(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 49.
    #[resource("bench:///area49/items/<id>/data")]
    async fn res_49(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 50.
    #[resource("bench:///area50/items/<id>/data")]
    async fn res_50(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 51.
    #[resource("bench:///area51/items/<id>/data")]
    async fn res_51(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 52.
    #[resource("bench:///area52/items/<id>/data")]
    async fn res_52(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 53.
    #[resource("bench:///area53/items/<id>/data")]
    async fn res_53(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 54.
    #[resource("bench:///area54/items/<id>/data")]
    async fn res_54(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 55.
    #[resource("bench:///area55/items/<id>/data")]
    async fn res_55(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 56.
    #[resource("bench:///area56/items/<id>/data")]
    async fn res_56(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 57.
    #[resource("bench:///area57/items/<id>/data")]
    async fn res_57(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 58.
    #[resource("bench:///area58/items/<id>/data")]
    async fn res_58(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 59.
    #[resource("bench:///area59/items/<id>/data")]
    async fn res_59(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 60.
    #[resource("bench:///area60/items/<id>/data")]
    async fn res_60(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 61.
    #[resource("bench:///area61/items/<id>/data")]
    async fn res_61(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 62.
    #[resource("bench:///area62/items/<id>/data")]
    async fn res_62(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 63.
    #[resource("bench:///area63/items/<id>/data")]
    async fn res_63(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 64.
    #[resource("bench:///area64/items/<id>/data")]
    async fn res_64(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 65.
    #[resource("bench:///area65/items/<id>/data")]
    async fn res_65(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 66.
    #[resource("bench:///area66/items/<id>/data")]
    async fn res_66(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 67.
    #[resource("bench:///area67/items/<id>/data")]
    async fn res_67(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 68.
    #[resource("bench:///area68/items/<id>/data")]
    async fn res_68(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 69.
    #[resource("bench:///area69/items/<id>/data")]
    async fn res_69(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 70.
    #[resource("bench:///area70/items/<id>/data")]
    async fn res_70(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 71.
    #[resource("bench:///area71/items/<id>/data")]
    async fn res_71(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 72.
    #[resource("bench:///area72/items/<id>/data")]
    async fn res_72(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 73.
    #[resource("bench:///area73/items/<id>/data")]
    async fn res_73(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 74.
    #[resource("bench:///area74/items/<id>/data")]
    async fn res_74(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 75.
    #[resource("bench:///area75/items/<id>/data")]
    async fn res_75(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 76.
    #[resource("bench:///area76/items/<id>/data")]
    async fn res_76(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 77.
    #[resource("bench:///area77/items/<id>/data")]
    async fn res_77(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 78.
    #[resource("bench:///area78/items/<id>/data")]
    async fn res_78(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 79.
    #[resource("bench:///area79/items/<id>/data")]
    async fn res_79(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 80.
    #[resource("bench:///area80/items/<id>/data")]
    async fn res_80(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 81.
    #[resource("bench:///area81/items/<id>/data")]
    async fn res_81(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 82.
    #[resource("bench:///area82/items/<id>/data")]
    async fn res_82(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 83.
    #[resource("bench:///area83/items/<id>/data")]
    async fn res_83(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 84.
    #[resource("bench:///area84/items/<id>/data")]
    async fn res_84(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 85.
    #[resource("bench:///area85/items/<id>/data")]
    async fn res_85(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 86.
    #[resource("bench:///area86/items/<id>/data")]
    async fn res_86(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 87.
    #[resource("bench:///area87/items/<id>/data")]
    async fn res_87(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 88.
    #[resource("bench:///area88/items/<id>/data")]
    async fn res_88(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 89.
    #[resource("bench:///area89/items/<id>/data")]
    async fn res_89(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 90.
    #[resource("bench:///area90/items/<id>/data")]
    async fn res_90(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 91.
    #[resource("bench:///area91/items/<id>/data")]
    async fn res_91(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 92.
    #[resource("bench:///area92/items/<id>/data")]
    async fn res_92(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 93.
    #[resource("bench:///area93/items/<id>/data")]
    async fn res_93(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 94.
    #[resource("bench:///area94/items/<id>/data")]
    async fn res_94(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 95.
    #[resource("bench:///area95/items/<id>/data")]
    async fn res_95(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 96.
    #[resource("bench:///area96/items/<id>/data")]
    async fn res_96(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 97.
    #[resource("bench:///area97/items/<id>/data")]
    async fn res_97(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 98.
    #[resource("bench:///area98/items/<id>/data")]
    async fn res_98(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 99.
    #[resource("bench:///area99/items/<id>/data")]
    async fn res_99(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 100.
    #[resource("bench:///area100/items/<id>/data")]
    async fn res_100(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 101.
    #[resource("bench:///area101/items/<id>/data")]
    async fn res_101(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 102.
    #[resource("bench:///area102/items/<id>/data")]
    async fn res_102(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 103.
    #[resource("bench:///area103/items/<id>/data")]
    async fn res_103(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 104.
    #[resource("bench:///area104/items/<id>/data")]
    async fn res_104(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 105.
    #[resource("bench:///area105/items/<id>/data")]
    async fn res_105(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 106.
    #[resource("bench:///area106/items/<id>/data")]
    async fn res_106(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 107.
    #[resource("bench:///area107/items/<id>/data")]
    async fn res_107(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 108.
    #[resource("bench:///area108/items/<id>/data")]
    async fn res_108(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 109.
    #[resource("bench:///area109/items/<id>/data")]
    async fn res_109(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 110.
    #[resource("bench:///area110/items/<id>/data")]
    async fn res_110(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 111.
    #[resource("bench:///area111/items/<id>/data")]
    async fn res_111(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 112.
    #[resource("bench:///area112/items/<id>/data")]
    async fn res_112(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 113.
    #[resource("bench:///area113/items/<id>/data")]
    async fn res_113(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 114.
    #[resource("bench:///area114/items/<id>/data")]
    async fn res_114(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 115.
    #[resource("bench:///area115/items/<id>/data")]
    async fn res_115(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 116.
    #[resource("bench:///area116/items/<id>/data")]
    async fn res_116(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 117.
    #[resource("bench:///area117/items/<id>/data")]
    async fn res_117(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 118.
    #[resource("bench:///area118/items/<id>/data")]
    async fn res_118(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 119.
    #[resource("bench:///area119/items/<id>/data")]
    async fn res_119(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 120.
    #[resource("bench:///area120/items/<id>/data")]
    async fn res_120(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 121.
    #[resource("bench:///area121/items/<id>/data")]
    async fn res_121(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 122.
    #[resource("bench:///area122/items/<id>/data")]
    async fn res_122(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 123.
    #[resource("bench:///area123/items/<id>/data")]
    async fn res_123(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 124.
    #[resource("bench:///area124/items/<id>/data")]
    async fn res_124(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 125.
    #[resource("bench:///area125/items/<id>/data")]
    async fn res_125(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 126.
    #[resource("bench:///area126/items/<id>/data")]
    async fn res_126(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 127.
    #[resource("bench:///area127/items/<id>/data")]
    async fn res_127(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 128.
    #[resource("bench:///area128/items/<id>/data")]
    async fn res_128(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 129.
    #[resource("bench:///area129/items/<id>/data")]
    async fn res_129(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 130.
    #[resource("bench:///area130/items/<id>/data")]
    async fn res_130(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 131.
    #[resource("bench:///area131/items/<id>/data")]
    async fn res_131(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 132.
    #[resource("bench:///area132/items/<id>/data")]
    async fn res_132(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 133.
    #[resource("bench:///area133/items/<id>/data")]
    async fn res_133(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 134.
    #[resource("bench:///area134/items/<id>/data")]
    async fn res_134(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 135.
    #[resource("bench:///area135/items/<id>/data")]
    async fn res_135(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 136.
    #[resource("bench:///area136/items/<id>/data")]
    async fn res_136(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 137.
    #[resource("bench:///area137/items/<id>/data")]
    async fn res_137(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 138.
    #[resource("bench:///area138/items/<id>/data")]
    async fn res_138(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 139.
    #[resource("bench:///area139/items/<id>/data")]
    async fn res_139(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 140.
    #[resource("bench:///area140/items/<id>/data")]
    async fn res_140(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 141.
    #[resource("bench:///area141/items/<id>/data")]
    async fn res_141(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 142.
    #[resource("bench:///area142/items/<id>/data")]
    async fn res_142(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 143.
    #[resource("bench:///area143/items/<id>/data")]
    async fn res_143(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 144.
    #[resource("bench:///area144/items/<id>/data")]
    async fn res_144(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 145.
    #[resource("bench:///area145/items/<id>/data")]
    async fn res_145(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 146.
    #[resource("bench:///area146/items/<id>/data")]
    async fn res_146(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 147.
    #[resource("bench:///area147/items/<id>/data")]
    async fn res_147(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 148.
    #[resource("bench:///area148/items/<id>/data")]
    async fn res_148(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 149.
    #[resource("bench:///area149/items/<id>/data")]
    async fn res_149(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 150.
    #[resource("bench:///area150/items/<id>/data")]
    async fn res_150(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 151.
    #[resource("bench:///area151/items/<id>/data")]
    async fn res_151(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 152.
    #[resource("bench:///area152/items/<id>/data")]
    async fn res_152(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 153.
    #[resource("bench:///area153/items/<id>/data")]
    async fn res_153(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 154.
    #[resource("bench:///area154/items/<id>/data")]
    async fn res_154(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 155.
    #[resource("bench:///area155/items/<id>/data")]
    async fn res_155(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 156.
    #[resource("bench:///area156/items/<id>/data")]
    async fn res_156(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 157.
    #[resource("bench:///area157/items/<id>/data")]
    async fn res_157(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 158.
    #[resource("bench:///area158/items/<id>/data")]
    async fn res_158(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 159.
    #[resource("bench:///area159/items/<id>/data")]
    async fn res_159(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 160.
    #[resource("bench:///area160/items/<id>/data")]
    async fn res_160(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 161.
    #[resource("bench:///area161/items/<id>/data")]
    async fn res_161(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 162.
    #[resource("bench:///area162/items/<id>/data")]
    async fn res_162(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 163.
    #[resource("bench:///area163/items/<id>/data")]
    async fn res_163(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 164.
    #[resource("bench:///area164/items/<id>/data")]
    async fn res_164(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 165.
    #[resource("bench:///area165/items/<id>/data")]
    async fn res_165(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 166.
    #[resource("bench:///area166/items/<id>/data")]
    async fn res_166(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 167.
    #[resource("bench:///area167/items/<id>/data")]
    async fn res_167(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 168.
    #[resource("bench:///area168/items/<id>/data")]
    async fn res_168(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 169.
    #[resource("bench:///area169/items/<id>/data")]
    async fn res_169(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 170.
    #[resource("bench:///area170/items/<id>/data")]
    async fn res_170(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 171.
    #[resource("bench:///area171/items/<id>/data")]
    async fn res_171(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 172.
    #[resource("bench:///area172/items/<id>/data")]
    async fn res_172(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 173.
    #[resource("bench:///area173/items/<id>/data")]
    async fn res_173(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 174.
    #[resource("bench:///area174/items/<id>/data")]
    async fn res_174(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 175.
    #[resource("bench:///area175/items/<id>/data")]
    async fn res_175(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 176.
    #[resource("bench:///area176/items/<id>/data")]
    async fn res_176(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 177.
    #[resource("bench:///area177/items/<id>/data")]
    async fn res_177(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 178.
    #[resource("bench:///area178/items/<id>/data")]
    async fn res_178(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 179.
    #[resource("bench:///area179/items/<id>/data")]
    async fn res_179(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 180.
    #[resource("bench:///area180/items/<id>/data")]
    async fn res_180(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 181.
    #[resource("bench:///area181/items/<id>/data")]
    async fn res_181(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 182.
    #[resource("bench:///area182/items/<id>/data")]
    async fn res_182(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 183.
    #[resource("bench:///area183/items/<id>/data")]
    async fn res_183(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 184.
    #[resource("bench:///area184/items/<id>/data")]
    async fn res_184(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 185.
    #[resource("bench:///area185/items/<id>/data")]
    async fn res_185(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 186.
    #[resource("bench:///area186/items/<id>/data")]
    async fn res_186(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 187.
    #[resource("bench:///area187/items/<id>/data")]
    async fn res_187(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 188.
    #[resource("bench:///area188/items/<id>/data")]
    async fn res_188(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 189.
    #[resource("bench:///area189/items/<id>/data")]
    async fn res_189(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 190.
    #[resource("bench:///area190/items/<id>/data")]
    async fn res_190(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 191.
    #[resource("bench:///area191/items/<id>/data")]
    async fn res_191(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 192.
    #[resource("bench:///area192/items/<id>/data")]
    async fn res_192(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 193.
    #[resource("bench:///area193/items/<id>/data")]
    async fn res_193(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 194.
    #[resource("bench:///area194/items/<id>/data")]
    async fn res_194(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 195.
    #[resource("bench:///area195/items/<id>/data")]
    async fn res_195(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 196.
    #[resource("bench:///area196/items/<id>/data")]
    async fn res_196(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 197.
    #[resource("bench:///area197/items/<id>/data")]
    async fn res_197(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 198.
    #[resource("bench:///area198/items/<id>/data")]
    async fn res_198(&self, id: u64) -> String {
        id.to_string()
    }

    /// Template 199.
    #[resource("bench:///area199/items/<id>/data")]
    async fn res_199(&self, id: u64) -> String {
        id.to_string()
    }
}
