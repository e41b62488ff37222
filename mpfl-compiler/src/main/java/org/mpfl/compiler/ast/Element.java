package org.mpfl.compiler.ast;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.diag.SourceLocation;

/**
 * A document element with the location of its start tag, its attributes (in document order, each
 * with its own location), child elements and character content. This located tree is the AST of
 * the document structure; the element-specific validators read it and produce the typed IR.
 */
public final class Element {
    private final String namespace;
    private final String name;
    private final SourceLocation location;
    private final Map<String, Attribute> attributes = new LinkedHashMap<>();
    private final List<Element> children = new ArrayList<>();
    private final StringBuilder text = new StringBuilder();
    private SourceLocation firstTextLocation;

    public Element(String namespace, String name, SourceLocation location) {
        this.namespace = namespace == null ? "" : namespace;
        this.name = name;
        this.location = location;
    }

    /** The namespace URI, empty if none. */
    public String namespace() {
        return namespace;
    }

    /** The local name. */
    public String name() {
        return name;
    }

    public SourceLocation location() {
        return location;
    }

    /** Attributes without a namespace (foreign-namespace attributes are dropped by the reader). */
    public Map<String, Attribute> attributes() {
        return Collections.unmodifiableMap(attributes);
    }

    public Attribute attribute(String attributeName) {
        return attributes.get(attributeName);
    }

    public List<Element> children() {
        return Collections.unmodifiableList(children);
    }

    /** Character content, concatenated (whitespace kept). */
    public String text() {
        return text.toString();
    }

    /** Where the first non-whitespace character content starts, or null if there is none. */
    public SourceLocation firstTextLocation() {
        return firstTextLocation;
    }

    public void addAttribute(Attribute attribute) {
        attributes.put(attribute.name(), attribute);
    }

    public void addChild(Element child) {
        children.add(child);
    }

    public void appendText(String characters, SourceLocation at) {
        if (firstTextLocation == null && !characters.isBlank()) {
            firstTextLocation = at;
        }
        text.append(characters);
    }

    @Override
    public String toString() {
        return "<" + name + "> at " + location;
    }
}
