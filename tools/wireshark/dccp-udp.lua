-- SPDX-License-Identifier: MIT
-- dccp-udp.lua: Wireshark/tshark decode DCCP-UDP (RFC 6773), DCCP packets
-- carried in UDP (by default on UDP port 6511), by handing the UDP payload
-- to Wireshark's own DCCP dissector.
--
-- RFC 6773 §3.3: the UDP checksum does the DCCP checksum's job; the DCCP
-- Checksum field is sent as zero and MUST be ignored on receipt.  So the
-- plugin shows the field as it came (under "DCCP-UDP"), and hands the DCCP
-- dissector a copy of the packet in which that field holds the checksum
-- native DCCP would carry (RFC 4340 §9, over the IP pseudo-header and the
-- CsCov coverage): Wireshark's DCCP checks then pass instead of reporting
-- every packet as bad.  The copy shows as its own data tab.  §3.8: DCCP
-- ports are independent of the UDP ports (many DCCP services share 6511).
--
-- Install: copy to ~/.local/lib/wireshark/plugins/ (or the system plugin
-- directory, /usr/lib/x86_64-linux-gnu/wireshark/plugins/); or run
--   tshark -X lua_script:dccp-udp.lua -r capture.pcap
-- Other UDP ports: Edit > Preferences > Protocols > DCCP-UDP, or
--   tshark -o dccp-udp.port:5000 ...  (and "Decode As" works as usual).

local dccp_udp = Proto("dccp-udp", "DCCP-UDP encapsulation (RFC 6773)")
local f_cksum = ProtoField.uint16("dccp-udp.dccp_checksum",
  "DCCP Checksum as sent (unused, RFC 6773 §3.3)", base.HEX)
local f_note = ProtoField.string("dccp-udp.note", "Note")
dccp_udp.fields = { f_cksum, f_note }

local DEFAULT_PORT = 6511
dccp_udp.prefs.port = Pref.uint("UDP port", DEFAULT_PORT,
                                "UDP port decoded as DCCP-UDP")

-- Wireshark registers its DCCP dissector for IP protocol 33
local dccp = DissectorTable.get("ip.proto"):get_dissector(33)
local udp_table = DissectorTable.get("udp.port")
local ip_src, ip_dst = Field.new("ip.src"), Field.new("ip.dst")
local ip6_src, ip6_dst = Field.new("ipv6.src"), Field.new("ipv6.dst")

-- one's complement sum of a ByteArray's 16-bit words (odd tail padded)
local function sum16(ba, from, to, acc)
  local i = from
  while i + 1 < to do
    acc = acc + ba:get_index(i) * 256 + ba:get_index(i + 1)
    i = i + 2
  end
  if i < to then
    acc = acc + ba:get_index(i) * 256
  end
  return acc
end

-- The DCCP checksum of ba (the DCCP packet, checksum field zero) as
-- native DCCP over IP would carry it (RFC 4340 §9), or nil if the
-- addresses are unknown.
local function native_checksum(ba)
  local src, dst = ip_src(), ip_dst()
  local proto_len
  if src == nil then
    src, dst = ip6_src(), ip6_dst()
  end
  if src == nil or dst == nil then
    return nil
  end
  local len = ba:len()
  local acc = sum16(src.range:bytes(), 0, src.len, 0)
  acc = sum16(dst.range:bytes(), 0, dst.len, acc)
  acc = acc + 33 + math.floor(len / 65536) + len % 65536 -- proto, length
  -- §9.2: CsCov 0 covers everything, else the header and (CsCov-1)*4
  -- bytes of application data
  local cscov = ba:get_index(5) % 16
  local cover = len
  if cscov > 0 then
    cover = math.min(len, math.floor(ba:get_index(4)) * 4 + (cscov - 1) * 4)
  end
  acc = sum16(ba, 0, cover, acc)
  while acc > 65535 do
    acc = math.floor(acc / 65536) + acc % 65536
  end
  return 65535 - acc
end
local registered = DEFAULT_PORT

function dccp_udp.dissector(tvb, pinfo, tree)
  if tvb:len() < 12 then
    return 0 -- shorter than any DCCP header: not ours
  end
  local t = tree:add(dccp_udp, tvb(0, 0))
  t:add(f_cksum, tvb(6, 2))
  if tvb(6, 2):uint() ~= 0 then
    t:add(f_note, "non-zero DCCP checksum: ignored on receipt (RFC 6773 §3.3)")
  end
  local ba = tvb:bytes()
  ba:set_index(6, 0)
  ba:set_index(7, 0)
  local c = native_checksum(ba)
  if c == nil then
    return dccp:call(tvb, pinfo, tree)
  end
  ba:set_index(6, math.floor(c / 256))
  ba:set_index(7, c % 256)
  return dccp:call(ba:tvb("DCCP with its native checksum"), pinfo, tree)
end

function dccp_udp.prefs_changed()
  if registered ~= dccp_udp.prefs.port then
    udp_table:remove(registered, dccp_udp)
    registered = dccp_udp.prefs.port
    udp_table:add(registered, dccp_udp)
  end
end

udp_table:add(DEFAULT_PORT, dccp_udp)
