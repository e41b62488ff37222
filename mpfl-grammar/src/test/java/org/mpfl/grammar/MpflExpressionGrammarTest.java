package org.mpfl.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.tree.ParseTree;
import org.antlr.v4.runtime.tree.TerminalNode;
import org.junit.jupiter.api.Test;

/** The expression grammar accepts the language of spec section 3 with its precedence, and nothing else. */
class MpflExpressionGrammarTest {

    private static final class Errors extends BaseErrorListener {
        final List<String> messages = new ArrayList<>();

        @Override
        public void syntaxError(Recognizer<?, ?> r, Object symbol, int line, int column, String msg, RecognitionException e) {
            messages.add(column + ": " + msg);
        }
    }

    private static MpflExpressionParser parser(String text, Errors errors) {
        MpflExpressionLexer lexer = new MpflExpressionLexer(CharStreams.fromString(text));
        lexer.removeErrorListeners();
        lexer.addErrorListener(errors);
        MpflExpressionParser parser = new MpflExpressionParser(new CommonTokenStream(lexer));
        parser.removeErrorListeners();
        parser.addErrorListener(errors);
        return parser;
    }

    /** Fully parenthesised rendering of the parse tree (operators shown where they bind). */
    private static String shape(String text) {
        Errors errors = new Errors();
        ParseTree tree = parser(text, errors).expressionEof().expression();
        assertEquals(List.of(), errors.messages, text);
        return render(tree);
    }

    private static String render(ParseTree tree) {
        if (tree instanceof TerminalNode t) {
            return t.getText();
        }
        if (tree.getChildCount() == 1) {
            return render(tree.getChild(0));
        }
        StringBuilder out = new StringBuilder("(");
        for (int i = 0; i < tree.getChildCount(); i++) {
            out.append(i == 0 ? "" : " ").append(render(tree.getChild(i)));
        }
        return out.append(")").toString();
    }

    private static boolean parses(String text) {
        Errors errors = new Errors();
        parser(text, errors).expressionEof();
        return errors.messages.isEmpty();
    }

    @Test
    void precedenceFollowsTheSpecification() {
        assertEquals("(1 + (2 * 3))", shape("1 + 2 * 3"));
        assertEquals("(1 - 2 - 3)", shape("1 - 2 - 3"), "left-associative chain");
        assertEquals("((a lt b) and (c ge d))", shape("a lt b and c ge d"));
        assertEquals("((a && b) || c)", shape("a && b || c"));
        assertEquals("((a or b) ? x : y)", shape("a or b ? x : y"));
        assertEquals("((not a) and b)", shape("not a and b"));
        assertEquals("((- 2) * 3)", shape("-2 * 3"));
        assertEquals("(a == b != c)", shape("a == b != c"), "one chain, folded left by the compiler");
        assertEquals("((a + 1) < (b * 2))", shape("a + 1 < b * 2"));
        assertEquals("(c ? x : (d ? y : z))", shape("c ? x : d ? y : z"));
        assertEquals("(u ([ (i + 1) ]))", shape("u[i + 1]"));
        assertEquals("(a ([ 1 : (n - 1) ]))", shape("a[1:n - 1]"));
        assertEquals("((coords ( 'g' )) ([ 0 ]))", shape("coords('g')[0]"));
    }

    @Test
    void literalsAndForms() {
        for (String ok : List.of("42", "42L", "42l", "3.5", "1e-6", "2.0E3", ".5", "'text'", "'te\\'xt'", "''", "true", "false",
                "[1, 2, 3]", "[]", "f()", "pow(x, y)", "a[i]", "a[i:j]", "x eq y", "x ne y", "x le y", "x gt y",
                "!x", "(((1)))", " 1 + \n 2 ", "'a' + 1")) {
            assertTrue(parses(ok), ok);
        }
        for (String bad : List.of("", "1 +", "(1", "1)", "a[", "a[1:]", "'unterminated", "1 2", "x = 1", "and", "f(,)",
                "[1,]", "a ? b", "3 $ 4", "1..2")) {
            assertTrue(!parses(bad), bad);
        }
    }

    @Test
    void expressionListsForDimsAndPeriodic() {
        Errors errors = new Errors();
        MpflExpressionParser.ExpressionListEofContext list = parser("4, 2, n / 2", errors).expressionListEof();
        assertEquals(List.of(), errors.messages);
        assertEquals(3, list.expression().size());
    }
}
