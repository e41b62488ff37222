package org.mpfl.runtime.transport.soap;

import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.Xml;

/**
 * The WSDL 1.1 description of one MPIWS service type: document/literal, SOAP 1.2 binding, the five
 * operations {@code run}, {@code store}, {@code bstore}, {@code status}, {@code abort}, and the MTOM
 * policy assertion on the binding (the payload of {@code store}/{@code bstore} is
 * {@code xs:base64Binary}, sent as an XOP attachment). {@code store}, {@code bstore} and
 * {@code abort} are one-way in WSDL 1.1 terms; the service runs them robust in-only, i.e. answers
 * HTTP 202 on success and a SOAP 1.2 fault otherwise.
 */
public final class MpiwsWsdl {
    private MpiwsWsdl() {
    }

    /**
     * The WSDL text.
     *
     * @param serviceType the service name (also the last path segment of the address)
     * @param address     the service's SOAP address
     */
    public static String of(String serviceType, String address) {
        String svc = Xml.escape(serviceType);
        StringBuilder sb = new StringBuilder(8192);
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
          .append("<wsdl:definitions name=\"").append(svc).append("\" targetNamespace=\"").append(MpiwsNames.NS).append("\"\n")
          .append("    xmlns:wsdl=\"http://schemas.xmlsoap.org/wsdl/\"\n")
          .append("    xmlns:soap12=\"http://schemas.xmlsoap.org/wsdl/soap12/\"\n")
          .append("    xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"\n")
          .append("    xmlns:xmime=\"http://www.w3.org/2005/05/xmlmime\"\n")
          .append("    xmlns:wsp=\"http://www.w3.org/ns/ws-policy\"\n")
          .append("    xmlns:wsoma=\"http://schemas.xmlsoap.org/ws/2004/09/policy/optimizedmimeserialization\"\n")
          .append("    xmlns:wsu=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd\"\n")
          .append("    xmlns:m=\"").append(MpiwsNames.NS).append("\">\n")
          .append("  <wsdl:documentation>MPIWS service ").append(svc)
          .append(": MPI-style web service operations (MPFL). store/bstore/abort are robust in-only: HTTP 202")
          .append(" on success, a SOAP 1.2 fault (subcode m:Rejected, m:Busy, m:Malformed) otherwise.")
          .append(" params, counters and output values are JSON text.</wsdl:documentation>\n")
          .append("  <wsp:Policy wsu:Id=\"MtomPolicy\"><wsoma:OptimizedMimeSerialization/></wsp:Policy>\n")
          .append("  <wsdl:types>\n")
          .append("    <xs:schema targetNamespace=\"").append(MpiwsNames.NS).append("\" elementFormDefault=\"qualified\">\n")
          .append("      <xs:import namespace=\"http://www.w3.org/2005/05/xmlmime\"/>\n")
          .append("      <xs:simpleType name=\"Kind\"><xs:restriction base=\"xs:string\">")
          .append("<xs:enumeration value=\"DATA\"/><xs:enumeration value=\"SYNC_DATA\"/>")
          .append("<xs:enumeration value=\"SYNC_ACK\"/><xs:enumeration value=\"BSTORE\"/></xs:restriction></xs:simpleType>\n")
          .append("      <xs:simpleType name=\"PayloadType\"><xs:restriction base=\"xs:string\">");
        for (org.mpfl.runtime.transport.Payload.Type t : org.mpfl.runtime.transport.Payload.Type.values()) {
            sb.append("<xs:enumeration value=\"").append(t.name()).append("\"/>");
        }
        sb.append("</xs:restriction></xs:simpleType>\n")
          .append("      <xs:complexType name=\"StoreMessage\"><xs:sequence>\n")
          .append("        <xs:element name=\"domainId\" type=\"xs:string\"/>\n")
          .append("        <xs:element name=\"context\" type=\"xs:int\"/>\n")
          .append("        <xs:element name=\"from\" type=\"xs:int\"/>\n")
          .append("        <xs:element name=\"to\" type=\"xs:int\"/>\n")
          .append("        <xs:element name=\"tag\" type=\"xs:int\"/>\n")
          .append("        <xs:element name=\"seq\" type=\"xs:long\"/>\n")
          .append("        <xs:element name=\"kind\" type=\"m:Kind\"/>\n")
          .append("        <xs:element name=\"proof\" type=\"xs:base64Binary\"/>\n")
          .append("        <xs:element name=\"type\" type=\"m:PayloadType\"/>\n")
          .append("        <xs:element name=\"length\" type=\"xs:long\" minOccurs=\"0\"/>\n")
          .append("        <xs:element name=\"payload\" type=\"xs:base64Binary\" xmime:expectedContentTypes=\"application/octet-stream\"/>\n")
          .append("      </xs:sequence></xs:complexType>\n")
          .append("      <xs:element name=\"store\" type=\"m:StoreMessage\"/>\n")
          .append("      <xs:element name=\"bstore\" type=\"m:StoreMessage\"/>\n")
          .append("      <xs:element name=\"run\"><xs:complexType><xs:sequence>\n")
          .append("        <xs:element name=\"domainId\" type=\"xs:string\"/>\n")
          .append("        <xs:element name=\"rank\" type=\"xs:int\"/>\n")
          .append("        <xs:element name=\"token\" type=\"xs:string\"/>\n")
          .append("        <xs:element name=\"callbackUrl\" type=\"xs:string\" minOccurs=\"0\"/>\n")
          .append("        <xs:element name=\"transport\" type=\"xs:string\" minOccurs=\"0\"/>\n")
          .append("        <xs:element name=\"endpoint\" maxOccurs=\"unbounded\"><xs:complexType>")
          .append("<xs:attribute name=\"rank\" type=\"xs:int\" use=\"required\"/>")
          .append("<xs:attribute name=\"soapUrl\" type=\"xs:string\" use=\"required\"/>")
          .append("<xs:attribute name=\"binaryAddress\" type=\"xs:string\"/>")
          .append("<xs:attribute name=\"hostId\" type=\"xs:string\"/></xs:complexType></xs:element>\n")
          .append("        <xs:element name=\"process\" minOccurs=\"0\" maxOccurs=\"unbounded\"><xs:complexType>")
          .append("<xs:attribute name=\"name\" type=\"xs:string\" use=\"required\"/>")
          .append("<xs:attribute name=\"service\" type=\"xs:string\" use=\"required\"/>")
          .append("<xs:attribute name=\"ranks\" type=\"xs:int\" use=\"required\"/></xs:complexType></xs:element>\n")
          .append("        <xs:element name=\"params\" type=\"xs:string\" minOccurs=\"0\"/>\n")
          .append("      </xs:sequence></xs:complexType></xs:element>\n")
          .append("      <xs:element name=\"runResponse\"><xs:complexType><xs:sequence>\n")
          .append("        <xs:element name=\"state\" type=\"xs:string\"/>\n")
          .append("      </xs:sequence></xs:complexType></xs:element>\n")
          .append("      <xs:element name=\"status\"><xs:complexType><xs:sequence>\n")
          .append("        <xs:element name=\"domainId\" type=\"xs:string\"/>\n")
          .append("        <xs:element name=\"rank\" type=\"xs:int\"/>\n")
          .append("      </xs:sequence></xs:complexType></xs:element>\n")
          .append("      <xs:element name=\"statusResponse\"><xs:complexType><xs:sequence>\n")
          .append("        <xs:element name=\"state\" type=\"xs:string\"/>\n")
          .append("        <xs:element name=\"progress\" minOccurs=\"0\"><xs:complexType>")
          .append("<xs:attribute name=\"value\" type=\"xs:double\"/><xs:attribute name=\"total\" type=\"xs:double\"/>")
          .append("</xs:complexType></xs:element>\n")
          .append("        <xs:element name=\"counters\" type=\"xs:string\" minOccurs=\"0\"/>\n")
          .append("        <xs:element name=\"output\" minOccurs=\"0\" maxOccurs=\"unbounded\"><xs:complexType><xs:simpleContent>")
          .append("<xs:extension base=\"xs:string\"><xs:attribute name=\"name\" type=\"xs:string\" use=\"required\"/>")
          .append("</xs:extension></xs:simpleContent></xs:complexType></xs:element>\n")
          .append("        <xs:element name=\"failure\" type=\"xs:string\" minOccurs=\"0\"/>\n")
          .append("      </xs:sequence></xs:complexType></xs:element>\n")
          .append("      <xs:element name=\"abort\"><xs:complexType><xs:sequence>\n")
          .append("        <xs:element name=\"domainId\" type=\"xs:string\"/>\n")
          .append("        <xs:element name=\"proof\" type=\"xs:base64Binary\"/>\n")
          .append("      </xs:sequence></xs:complexType></xs:element>\n")
          .append("    </xs:schema>\n")
          .append("  </wsdl:types>\n");
        String[][] msgs = {{"runRequest", "run"}, {"runResponse", "runResponse"}, {"storeRequest", "store"},
            {"bstoreRequest", "bstore"}, {"statusRequest", "status"}, {"statusResponse", "statusResponse"},
            {"abortRequest", "abort"}};
        for (String[] m : msgs) {
            sb.append("  <wsdl:message name=\"").append(m[0]).append("\"><wsdl:part name=\"parameters\" element=\"m:")
              .append(m[1]).append("\"/></wsdl:message>\n");
        }
        sb.append("  <wsdl:portType name=\"MpiwsPortType\">\n");
        op(sb, "run", true);
        op(sb, "store", false);
        op(sb, "bstore", false);
        op(sb, "status", true);
        op(sb, "abort", false);
        sb.append("  </wsdl:portType>\n")
          .append("  <wsdl:binding name=\"MpiwsSoap12Binding\" type=\"m:MpiwsPortType\">\n")
          .append("    <wsp:PolicyReference URI=\"#MtomPolicy\"/>\n")
          .append("    <soap12:binding style=\"document\" transport=\"http://schemas.xmlsoap.org/soap/http\"/>\n");
        for (String op : new String[] {"run", "store", "bstore", "status", "abort"}) {
            boolean out = op.equals("run") || op.equals("status");
            sb.append("    <wsdl:operation name=\"").append(op).append("\">\n")
              .append("      <soap12:operation soapAction=\"").append(MpiwsNames.action(op)).append("\" style=\"document\"/>\n")
              .append("      <wsdl:input><soap12:body use=\"literal\"/></wsdl:input>\n");
            if (out) {
                sb.append("      <wsdl:output><soap12:body use=\"literal\"/></wsdl:output>\n");
            }
            sb.append("    </wsdl:operation>\n");
        }
        sb.append("  </wsdl:binding>\n")
          .append("  <wsdl:service name=\"").append(svc).append("\">\n")
          .append("    <wsdl:port name=\"").append(svc).append("Soap12Port\" binding=\"m:MpiwsSoap12Binding\">\n")
          .append("      <soap12:address location=\"").append(Xml.escape(address)).append("\"/>\n")
          .append("    </wsdl:port>\n")
          .append("  </wsdl:service>\n")
          .append("</wsdl:definitions>\n");
        return sb.toString();
    }

    private static void op(StringBuilder sb, String name, boolean out) {
        sb.append("    <wsdl:operation name=\"").append(name).append("\">")
          .append("<wsdl:input message=\"m:").append(name).append("Request\"/>");
        if (out) {
            sb.append("<wsdl:output message=\"m:").append(name).append("Response\"/>");
        }
        sb.append("</wsdl:operation>\n");
    }
}
