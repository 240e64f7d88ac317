//! Engine options set from the page: checked against the engine's own `uci` list, and never
//! the ones the server sets itself.

use super::{bad, strip_error, Res, Search, Session, RESERVED_OPTIONS};
use crate::records::cut;

impl Session {
    pub(super) async fn set_option(&mut self, name: String, value: Option<String>) -> Res<()> {
        let opt = match self.eng()?.option(&name) {
            Some(o) => o.clone(),
            None => return bad(format!("the engine has no option '{}'", cut(&name))),
        };
        if RESERVED_OPTIONS
            .iter()
            .any(|r| r.eq_ignore_ascii_case(&opt.name))
        {
            return bad(format!("{} is set by the page's own controls", opt.name));
        }
        let value = match (opt.kind.as_str(), value) {
            ("button", _) => None,
            ("spin", Some(v)) => match v.trim().parse::<u64>() {
                Ok(n) if opt.min.is_none_or(|m| n >= m) && opt.max.is_none_or(|m| n <= m) => {
                    Some(n.to_string())
                }
                _ => {
                    return bad(format!(
                        "{}: '{}' is not a number in range",
                        opt.name,
                        cut(&v)
                    ))
                }
            },
            ("check", Some(v)) => match v.to_ascii_lowercase().as_str() {
                "true" => Some("true".into()),
                "false" => Some("false".into()),
                _ => return bad(format!("{}: '{}' is not true or false", opt.name, cut(&v))),
            },
            ("combo", Some(v)) => match opt.vars.iter().find(|x| x.eq_ignore_ascii_case(&v)) {
                Some(x) => Some(x.clone()),
                None => {
                    return bad(format!(
                        "{}: '{}' is not one of its values",
                        opt.name,
                        cut(&v)
                    ))
                }
            },
            ("string", _) => return bad(format!("{} cannot be set from the page", opt.name)),
            (_, None) => return bad(format!("{} needs a value", opt.name)),
            (k, _) => {
                return bad(format!(
                    "{}: options of type '{}' are not supported",
                    opt.name,
                    cut(k)
                ))
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
            self.error(format!("the engine refused it: {}", strip_error(a)));
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
