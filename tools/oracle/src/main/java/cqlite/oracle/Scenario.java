package cqlite.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A scenario file: CQL statements terminated by ';', plus directive comments
 * that stand alone on their own line:
 *   -- flush                    flush every table of the non-system keyspaces
 *   -- compact ks.table         major compaction of one table
 *   -- sleep SECONDS            pause (fractions allowed)
 *   -- select ks.table [+N]     SELECT JSON * of one table, queried now (plus
 *                               N seconds: a later query time)
 *   -- describe ks              DESCRIBE KEYSPACE now, with each table's live
 *                               SSTable generations
 * Any other line whose first non-blank characters are "--" or "//" is a
 * comment. Semicolons inside '...' strings, "..." identifiers and $$...$$
 * blocks do not end a statement.
 */
final class Scenario
{
    enum Kind { CQL, FLUSH, COMPACT, SLEEP, SELECT, DESCRIBE }

    static final class Step
    {
        final Kind kind;
        final String text;   // statement, "ks.table" or seconds
        final long offset;   // SELECT: seconds added to the node's clock
        final int line;      // 1-based line where the step starts

        Step(Kind kind, String text, int line)
        {
            this(kind, text, 0, line);
        }

        Step(Kind kind, String text, long offset, int line)
        {
            this.kind = kind;
            this.text = text;
            this.offset = offset;
            this.line = line;
        }

        @Override
        public String toString()
        {
            return "line " + line + ": " + kind + (text.isEmpty() ? "" : " " + text) + (offset == 0 ? "" : " +" + offset);
        }
    }

    private Scenario()
    {
    }

    static List<Step> parse(String source)
    {
        List<Step> steps = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int currentLine = -1;
        boolean inSingle = false, inDouble = false, inDollar = false;

        String[] lines = source.split("\r?\n", -1);
        for (int ln = 0; ln < lines.length; ln++)
        {
            String line = lines[ln];
            boolean insideLiteral = inSingle || inDouble || inDollar;
            String trimmed = line.trim();
            if (!insideLiteral && (trimmed.startsWith("--") || trimmed.startsWith("//")))
            {
                Step directive = directive(trimmed, ln + 1);
                if (directive != null)
                {
                    if (current.toString().trim().length() > 0)
                        throw new IllegalArgumentException("line " + (ln + 1) + ": directive inside an unterminated statement starting at line " + currentLine);
                    steps.add(directive);
                }
                continue;
            }

            for (int i = 0; i < line.length(); i++)
            {
                char c = line.charAt(i);
                if (inSingle)
                {
                    current.append(c);
                    if (c == '\'')
                        inSingle = false; // a doubled '' re-enters on the next char
                    continue;
                }
                if (inDouble)
                {
                    current.append(c);
                    if (c == '"')
                        inDouble = false;
                    continue;
                }
                if (inDollar)
                {
                    current.append(c);
                    if (c == '$' && i + 1 < line.length() && line.charAt(i + 1) == '$')
                    {
                        current.append('$');
                        i++;
                        inDollar = false;
                    }
                    continue;
                }
                // trailing comment on a statement line
                if ((c == '-' || c == '/') && i + 1 < line.length() && line.charAt(i + 1) == c)
                    break;
                if (current.toString().trim().isEmpty() && !Character.isWhitespace(c))
                    currentLine = ln + 1;
                if (c == ';')
                {
                    String stmt = current.toString().trim();
                    if (!stmt.isEmpty())
                        steps.add(new Step(Kind.CQL, stmt, currentLine));
                    current.setLength(0);
                    continue;
                }
                current.append(c);
                if (c == '\'')
                    inSingle = true;
                else if (c == '"')
                    inDouble = true;
                else if (c == '$' && i + 1 < line.length() && line.charAt(i + 1) == '$')
                {
                    current.append('$');
                    i++;
                    inDollar = true;
                }
            }
            current.append('\n');
        }
        if (current.toString().trim().length() > 0)
            throw new IllegalArgumentException("unterminated statement (missing ';') starting at line " + currentLine);
        return steps;
    }

    private static Step directive(String comment, int line)
    {
        String body = comment.substring(2).trim();
        String[] words = body.split("\\s+");
        if (words.length == 0)
            return null;
        String word = words[0].toLowerCase(Locale.ROOT);
        switch (word)
        {
            case "flush":
                return new Step(Kind.FLUSH, "", line);
            case "compact":
                if (words.length != 2 || !words[1].contains("."))
                    throw new IllegalArgumentException("line " + line + ": expected '-- compact <keyspace>.<table>'");
                return new Step(Kind.COMPACT, words[1], line);
            case "sleep":
                if (words.length != 2)
                    throw new IllegalArgumentException("line " + line + ": expected '-- sleep <seconds>'");
                Double.parseDouble(words[1]);
                return new Step(Kind.SLEEP, words[1], line);
            case "describe":
                if (words.length != 2 || words[1].contains("."))
                    throw new IllegalArgumentException("line " + line + ": expected '-- describe <keyspace>'");
                return new Step(Kind.DESCRIBE, words[1], line);
            case "select":
            {
                String usage = "line " + line + ": expected '-- select <keyspace>.<table> [+<seconds>]'";
                if (words.length < 2 || words.length > 3 || words[1].indexOf('.') <= 0 || words[1].endsWith("."))
                    throw new IllegalArgumentException(usage);
                long offset = 0;
                if (words.length == 3)
                {
                    if (!words[2].matches("\\+[0-9]{1,9}"))
                        throw new IllegalArgumentException(usage);
                    offset = Long.parseLong(words[2].substring(1));
                }
                return new Step(Kind.SELECT, words[1], offset, line);
            }
            default:
                return null;
        }
    }
}
