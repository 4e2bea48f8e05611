import { FIELDS_PER_ROW, type FieldModel, type FieldRow } from './view-model.js';
import { RichText } from './parts.js';
import { look, type Styling } from './styling.js';

/**
 * The fields grid: inline fields side by side (up to FIELDS_PER_ROW per row), the
 * others across the card. E-mail gets a table with fixed-width cells; pages get a
 * <dl> whose CSS grid places the same rows (a wide field spans every column).
 */
export function Fields(props: { styling: Styling; rows: FieldRow[] }) {
  const { styling, rows } = props;
  if (!rows.length) return null;
  if (styling === 'classes') {
    return (
      <dl {...look(styling, 'fields')}>
        {rows.flatMap((r) => r.fields).map((f) => (
          <div {...look(styling, f.inline ? 'field' : 'fieldWide')}>
            <dt {...look(styling, 'fieldLabel')}>{f.label}</dt>
            <dd {...look(styling, 'fieldValue')}>
              <RichText styling={styling} lines={f.value} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  const width = `${Math.floor(100 / FIELDS_PER_ROW)}%`;
  return (
    <table role="presentation" width="100%" cellpadding={0} cellspacing={0} border={0} {...look(styling, 'fields')}>
      {rows.map((r) =>
        r.inline ? (
          <tr>
            {r.fields.map((f) => (
              <FieldCell field={f} width={width} colspan={1} />
            ))}
            {/* Empty cells keep a short last row's fields the same width as the full rows above. */}
            {Array.from({ length: FIELDS_PER_ROW - r.fields.length }, () => (
              <td width={width}>{'\u00a0'}</td>
            ))}
          </tr>
        ) : (
          <tr>
            <FieldCell field={r.fields[0]!} width="100%" colspan={FIELDS_PER_ROW} />
          </tr>
        ),
      )}
    </table>
  );
}

function FieldCell(props: { field: FieldModel; width: string; colspan: number }) {
  return (
    <td valign="top" width={props.width} colspan={props.colspan} {...look('inline', 'field')}>
      <div {...look('inline', 'fieldLabel')}>{props.field.label}</div>
      <div {...look('inline', 'fieldValue')}>
        <RichText styling="inline" lines={props.field.value} />
      </div>
    </td>
  );
}
