//! Engine options set from the page: checked against the engine's own `uci` list, and never
//! the ones the server sets itself.

use super::{strip_error, Res, Search, Session, RESERVED_OPTIONS};
use crate::records::cut;

impl Session {
    pub(super) async fn set_option(&mut self, name: String, value: Option<String>) -> Res<()> {
        let opt = match self.eng()?.option(&name) {
            Some(o) => o.clone(),
            None => {
                return bad!(
                    "e_no_option",
                    "the engine has no option '{name}'",
                    name = cut(&name)
                )
            }
        };
        if RESERVED_OPTIONS
            .iter()
            .any(|r| r.eq_ignore_ascii_case(&opt.name))
        {
            return bad!(
                "e_option_reserved",
                "{name} is set by the page's own controls",
                name = &opt.name
            );
        }
        let value = match (opt.kind.as_str(), value) {
            ("button", _) => None,
            ("spin", Some(v)) => match v.trim().parse::<u64>() {
                Ok(n) if opt.min.is_none_or(|m| n >= m) && opt.max.is_none_or(|m| n <= m) => {
                    Some(n.to_string())
                }
                _ => {
                    return bad!(
                        "e_option_range",
                        "{name}: '{value}' is not a number in range",
                        name = &opt.name,
                        value = cut(&v)
                    )
                }
            },
            ("check", Some(v)) => match v.to_ascii_lowercase().as_str() {
                "true" => Some("true".into()),
                "false" => Some("false".into()),
                _ => {
                    return bad!(
                        "e_option_bool",
                        "{name}: '{value}' is not true or false",
                        name = &opt.name,
                        value = cut(&v)
                    )
                }
            },
            ("combo", Some(v)) => match opt.vars.iter().find(|x| x.eq_ignore_ascii_case(&v)) {
                Some(x) => Some(x.clone()),
                None => {
                    return bad!(
                        "e_option_combo",
                        "{name}: '{value}' is not one of its values",
                        name = &opt.name,
                        value = cut(&v)
                    )
                }
            },
            ("string", _) => {
                return bad!(
                    "e_option_string",
                    "{name} cannot be set from the page",
                    name = &opt.name
                )
            }
            (_, None) => return bad!("e_option_value", "{name} needs a value", name = &opt.name),
            (k, _) => {
                return bad!(
                    "e_option_kind",
                    "{name}: options of type '{kind}' are not supported",
                    name = &opt.name,
                    kind = cut(k)
                )
            }
        };
        let was = self.search.clone();
        self.stop_all().await?;
        let cmd = match &value {
            Some(v) => format!("setoption name {} value {v}", opt.name),
            None => format!("setoption name {}", opt.name),
        };
        let answers = self.eng()?.sync(&[cmd]).await?;
        if let Some(a) = answers.first() {
            self.error(refusal!(
                "e_option_refused",
                "the engine refused it: {why}",
                why = strip_error(a)
            ));
        } else if let Some(v) = value {
            self.option_values.retain(|(n, _)| n != &opt.name);
            self.option_values.push((opt.name.clone(), v));
        }
        if was != Search::Idle {
            self.after_change().await;
        }
        Ok(())
    }
}
