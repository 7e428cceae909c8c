/* The ROM serial loader's packet layout (see include/espbench/rom_proto.h). */
#include "espbench/formats/rom_proto.h"

#include <string.h>

#define ROM_HDR 8u

typedef struct code_name {
    int code;
    const char *name;
} code_name;

static const code_name rom_errs[] = {
    {0x00, "undefined error"},
    {0x01, "invalid input parameter"},
    {0x02, "memory allocation failed"},
    {0x03, "send failed"},
    {0x04, "receive failed"},
    {EB_ROM_ERR_INVALID_MSG, "invalid message (bad format, length or unknown command)"},
    {EB_ROM_ERR_FAILED, "command failed"},
    {EB_ROM_ERR_CHECKSUM, "checksum error"},
    {EB_ROM_ERR_FLASH_WRITE, "flash write error"},
    {EB_ROM_ERR_FLASH_READ, "flash read error"},
    {EB_ROM_ERR_FLASH_READ_LEN, "flash read length error"},
    {EB_ROM_ERR_DEFLATE, "deflate error"},
    {EB_ROM_ERR_DEFLATE_ADLER, "deflate Adler-32 error"},
    {EB_ROM_ERR_DEFLATE_PARAM, "deflate parameter error"},
    {0x0E, "invalid RAM binary size"},
    {0x0F, "invalid RAM binary address"},
    {EB_ROM_ERR_BAD_SEQ, "invalid parameter (sequence out of order)"},
    {0x65, "invalid format"},
    {0x66, "description too long"},
    {0x67, "bad encoding description"},
    {0x69, "insufficient storage"},
    {EB_STUB_ERR_BAD_DATA_LEN, "bad data length"},
    {EB_STUB_ERR_BAD_CHECKSUM, "bad data checksum"},
    {EB_STUB_ERR_BAD_BLOCKSIZE, "bad block size"},
    {EB_STUB_ERR_INVALID_COMMAND, "invalid command"},
    {0xC4, "SPI operation failed"},
    {0xC5, "SPI unlock failed"},
    {0xC6, "not in flash mode"},
    {EB_STUB_ERR_INFLATE, "inflate error"},
    {EB_STUB_ERR_NOT_ENOUGH_DATA, "not enough data"},
    {EB_STUB_ERR_TOO_MUCH_DATA, "too much data"},
    {0xFF, "command not implemented"},
};

static const code_name rom_ops[] = {
    {EB_ROM_FLASH_BEGIN, "FLASH_BEGIN"},
    {EB_ROM_FLASH_DATA, "FLASH_DATA"},
    {EB_ROM_FLASH_END, "FLASH_END"},
    {EB_ROM_MEM_BEGIN, "MEM_BEGIN"},
    {EB_ROM_MEM_END, "MEM_END"},
    {EB_ROM_MEM_DATA, "MEM_DATA"},
    {EB_ROM_SYNC, "SYNC"},
    {EB_ROM_WRITE_REG, "WRITE_REG"},
    {EB_ROM_READ_REG, "READ_REG"},
    {EB_ROM_SPI_SET_PARAMS, "SPI_SET_PARAMS"},
    {EB_ROM_SPI_ATTACH, "SPI_ATTACH"},
    {EB_ROM_READ_FLASH_SLOW, "READ_FLASH_SLOW"},
    {EB_ROM_CHANGE_BAUDRATE, "CHANGE_BAUDRATE"},
    {EB_ROM_FLASH_DEFL_BEGIN, "FLASH_DEFL_BEGIN"},
    {EB_ROM_FLASH_DEFL_DATA, "FLASH_DEFL_DATA"},
    {EB_ROM_FLASH_DEFL_END, "FLASH_DEFL_END"},
    {EB_ROM_SPI_FLASH_MD5, "SPI_FLASH_MD5"},
    {EB_ROM_GET_SECURITY_INFO, "GET_SECURITY_INFO"},
    {EB_ROM_ERASE_FLASH, "ERASE_FLASH"},
    {EB_ROM_ERASE_REGION, "ERASE_REGION"},
    {EB_ROM_READ_FLASH, "READ_FLASH"},
    {EB_ROM_RUN_USER_CODE, "RUN_USER_CODE"},
};

static const char *lookup(const code_name *t, size_t n, int code, const char *unknown)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].code == code)
            return t[i].name;
    return unknown;
}

const char *eb_rom_err_name(int code)
{
    return lookup(rom_errs, sizeof rom_errs / sizeof rom_errs[0], code, "unknown error");
}

const char *eb_rom_op_name(int op)
{
    return lookup(rom_ops, sizeof rom_ops / sizeof rom_ops[0], op, "UNKNOWN");
}

uint8_t eb_rom_checksum(const uint8_t *data, size_t len)
{
    uint8_t c = EB_ROM_CHECKSUM_SEED;
    for (size_t i = 0; i < len; i++)
        c ^= data[i];
    return c;
}

void eb_rom_build_request(eb_buf *out, uint8_t op, const uint8_t *data, size_t len, uint32_t checksum)
{
    uint8_t hdr[ROM_HDR];
    hdr[0] = 0x00;
    hdr[1] = op;
    eb_wr16le(hdr + 2, (uint16_t)len);
    eb_wr32le(hdr + 4, checksum);
    eb_buf_append(out, hdr, sizeof hdr);
    eb_buf_append(out, data, len);
}

void eb_rom_build_data_request(eb_buf *out, uint8_t op, uint32_t seq, const uint8_t *data, size_t len)
{
    uint8_t hdr[ROM_HDR + EB_ROM_DATA_HDR];
    hdr[0] = 0x00;
    hdr[1] = op;
    eb_wr16le(hdr + 2, (uint16_t)(len + EB_ROM_DATA_HDR));
    eb_wr32le(hdr + 4, eb_rom_checksum(data, len));
    eb_wr32le(hdr + 8, (uint32_t)len);
    eb_wr32le(hdr + 12, seq);
    eb_wr32le(hdr + 16, 0);
    eb_wr32le(hdr + 20, 0);
    eb_buf_append(out, hdr, sizeof hdr);
    eb_buf_append(out, data, len);
}

int eb_rom_parse_request(const uint8_t *pkt, size_t len, eb_rom_request *out)
{
    if (len < ROM_HDR || pkt[0] != 0x00)
        return -1;
    uint16_t size = eb_rd16le(pkt + 2);
    if ((size_t)size != len - ROM_HDR)
        return -1;
    out->op = pkt[1];
    out->size = size;
    out->checksum = eb_rd32le(pkt + 4);
    out->data = pkt + ROM_HDR;
    return 0;
}

void eb_rom_build_response(eb_buf *out, uint8_t op, uint32_t value, const uint8_t *payload,
                           size_t payload_len, uint8_t status, uint8_t error, int status_bytes)
{
    if (status_bytes < 2)
        status_bytes = 2;
    uint8_t hdr[ROM_HDR];
    hdr[0] = 0x01;
    hdr[1] = op;
    eb_wr16le(hdr + 2, (uint16_t)(payload_len + (size_t)status_bytes));
    eb_wr32le(hdr + 4, value);
    eb_buf_append(out, hdr, sizeof hdr);
    eb_buf_append(out, payload, payload_len);
    eb_buf_append_byte(out, status);
    eb_buf_append_byte(out, error);
    for (int i = 2; i < status_bytes; i++)
        eb_buf_append_byte(out, 0);
}

int eb_rom_parse_response(const uint8_t *pkt, size_t len, size_t expected_payload, eb_rom_response *out)
{
    if (len < ROM_HDR || pkt[0] != 0x01)
        return -1;
    memset(out, 0, sizeof *out);
    out->op = pkt[1];
    out->size = eb_rd16le(pkt + 2);
    out->value = eb_rd32le(pkt + 4);
    out->data = pkt + ROM_HDR;
    out->data_len = len - ROM_HDR;
    /* Status follows the expected payload (2 or 4 status bytes; the extra 2 of
     * the ESP32+ ROM are reserved). A short reply (an error without payload)
     * carries its status at the start, as esptool reads it. */
    size_t at = out->data_len >= expected_payload + 2 ? expected_payload : 0;
    if (out->data_len < at + 2)
        return -1;
    out->status = out->data[at];
    out->error = out->data[at + 1];
    /* The stub sends its code in the first byte and 0 in the second
     * (e.g. C1 00 for a bad checksum): report the code as the error. */
    if (out->status != 0 && out->error == 0)
        out->error = out->status;
    return 0;
}
