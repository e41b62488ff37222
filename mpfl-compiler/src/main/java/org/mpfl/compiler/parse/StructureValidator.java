package org.mpfl.compiler.parse;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.ir.diag.Diagnostics;

/**
 * Checks the element tree against {@link ElementCatalog}: namespace, known elements, nesting and
 * order, known and required attributes, no stray text. Every problem is reported; the checker that
 * runs next skips what is reported here (unknown elements, missing attributes).
 */
public final class StructureValidator {
    private static final List<String> WORKFLOW_ORDER = List.of("description", "library", "param", "process");

    private final Diagnostics diagnostics;

    public StructureValidator(Diagnostics diagnostics) {
        this.diagnostics = diagnostics;
    }

    /** Validates the whole document. */
    public void validate(Element root) {
        if (!root.name().equals("workflow")) {
            diagnostics.error(root.location(), "the root element must be <workflow>, not <" + root.name() + ">");
            return;
        }
        if (!root.namespace().equals(ElementCatalog.NAMESPACE)) {
            diagnostics.error(root.location(), root.namespace().isEmpty()
                    ? "<workflow> must declare the MPFL namespace: xmlns=\"" + ElementCatalog.NAMESPACE + "\""
                    : "<workflow> is in namespace '" + root.namespace() + "', expected '" + ElementCatalog.NAMESPACE + "'");
        }
        element(root, root.namespace());
    }

    private void element(Element element, String documentNamespace) {
        ElementCatalog.Rule rule = ElementCatalog.rule(element.name());
        attributes(element, rule);
        text(element, rule);
        switch (rule.content()) {
            case EMPTY, TEXT -> {
                for (Element child : element.children()) {
                    diagnostics.error(child.location(), "<" + child.name() + "> is not allowed inside <" + element.name()
                            + "> (it has no child elements)");
                }
            }
            case CHILDREN -> {
                if (element.name().equals("workflow")) {
                    workflowChildren(element, documentNamespace);
                } else {
                    specificChildren(element, rule, documentNamespace);
                }
            }
            case ACTIVITIES -> activityChildren(element, rule, documentNamespace);
        }
    }

    private boolean known(Element child, Element parent, String documentNamespace) {
        if (!child.namespace().equals(documentNamespace)) {
            diagnostics.error(child.location(), "element <" + child.name() + "> in namespace '" + child.namespace()
                    + "' is not allowed in <" + parent.name() + ">");
            return false;
        }
        if (ElementCatalog.rule(child.name()) == null) {
            diagnostics.error(child.location(), "unknown element <" + child.name() + "> in <" + parent.name() + ">"
                    + OtherLanguagesNames.element(child.name(), ElementCatalog.elementNames()));
            return false;
        }
        return true;
    }

    private void workflowChildren(Element workflow, String ns) {
        int stage = 0;
        int descriptions = 0;
        int processes = 0;
        for (Element child : workflow.children()) {
            if (!known(child, workflow, ns)) {
                continue;
            }
            int position = WORKFLOW_ORDER.indexOf(child.name());
            if (position < 0) {
                diagnostics.error(child.location(), "<" + child.name() + "> is not allowed directly in <workflow>"
                        + (ElementCatalog.ACTIVITIES.contains(child.name()) || child.name().equals("var")
                        ? " (activities and vars belong inside a <process>)" : ""));
                continue;
            }
            if (position < stage) {
                diagnostics.error(child.location(), "<" + child.name() + "> must come before <" + WORKFLOW_ORDER.get(stage)
                        + "> (order: description, library, param, process)");
            }
            stage = Math.max(stage, position);
            if (child.name().equals("description") && ++descriptions == 2) {
                diagnostics.error(child.location(), "<workflow> has more than one <description>");
            }
            if (child.name().equals("process")) {
                processes++;
            }
            element(child, ns);
        }
        if (processes == 0) {
            diagnostics.error(workflow.location(), "<workflow> needs at least one <process>");
        }
    }

    private void specificChildren(Element parent, ElementCatalog.Rule rule, String ns) {
        int count = 0;
        for (Element child : parent.children()) {
            if (!known(child, parent, ns)) {
                continue;
            }
            if (!rule.children().contains(child.name())) {
                diagnostics.error(child.location(), "<" + child.name() + "> is not allowed in <" + parent.name() + ">"
                        + (parent.name().equals("parallel") ? " (wrap activities in <branch>)" : ""));
                continue;
            }
            count++;
            element(child, ns);
        }
        if (count == 0 && parent.name().equals("parallel")) {
            diagnostics.error(parent.location(), "<parallel> needs at least one <branch>");
        }
    }

    private void activityChildren(Element parent, ElementCatalog.Rule rule, String ns) {
        boolean activitySeen = false;
        boolean elseSeen = false;
        boolean elseifSeen = false;
        for (Element child : parent.children()) {
            if (!known(child, parent, ns)) {
                continue;
            }
            String name = child.name();
            if (ElementCatalog.ACTIVITIES.contains(name)) {
                if (elseSeen || elseifSeen) {
                    diagnostics.error(child.location(), "<" + name + "> after <" + (elseSeen ? "else" : "elseif")
                            + "> in <if>: the activities of the then-part come first");
                }
                activitySeen = true;
            } else if (rule.children().contains(name)) {
                switch (name) {
                    case "var" -> {
                        if (activitySeen) {
                            diagnostics.error(child.location(), "<var> must come before the activities of <" + parent.name() + ">");
                        }
                    }
                    case "elseif" -> {
                        if (elseSeen) {
                            diagnostics.error(child.location(), "<elseif> after <else>");
                        }
                        elseifSeen = true;
                    }
                    case "else" -> {
                        if (elseSeen) {
                            diagnostics.error(child.location(), "<if> has more than one <else>");
                        }
                        elseSeen = true;
                    }
                    default -> {
                    }
                }
            } else {
                diagnostics.error(child.location(), placementMessage(name, parent.name()));
                continue;
            }
            element(child, ns);
        }
    }

    private static String placementMessage(String child, String parent) {
        return switch (child) {
            case "elseif", "else" -> "<" + child + "> must be directly inside <if>, not <" + parent + ">";
            case "branch" -> "<branch> must be directly inside <parallel>, not <" + parent + ">";
            case "var" -> "<var> is only allowed at the start of a <process>, not in <" + parent + ">";
            default -> "<" + child + "> is not allowed in <" + parent + ">";
        };
    }

    private void attributes(Element element, ElementCatalog.Rule rule) {
        Map<String, Attribute> present = element.attributes();
        for (Attribute attribute : present.values()) {
            if (!rule.allows(attribute.name())) {
                Collection<String> allowed = rule.allAttributes();
                diagnostics.error(attribute.location(), "unknown attribute '" + attribute.name() + "' on <" + element.name() + ">"
                        + OtherLanguagesNames.attribute(attribute.name(), allowed)
                        + (allowed.isEmpty() ? " (it takes no attributes)" : ""));
            }
        }
        for (String required : rule.required()) {
            if (!present.containsKey(required)) {
                diagnostics.error(element.location(), "<" + element.name() + "> is missing required attribute '" + required + "'");
            }
        }
    }

    private void text(Element element, ElementCatalog.Rule rule) {
        if (rule.content() != ElementCatalog.Content.TEXT && element.firstTextLocation() != null) {
            diagnostics.error(element.firstTextLocation(), "unexpected text in <" + element.name() + ">: '"
                    + ExpressionParser.shorten(element.text()) + "'");
        }
    }
}
