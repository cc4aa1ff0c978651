// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title Stablecoin
/// @notice The development settlement token: US dollars with 6 decimals. Only the account that
/// deployed it can mint (to fund the token manager's reserve and development wallets).
contract Stablecoin is ERC20 {
    /// @notice The deployer, the only account allowed to mint.
    address public immutable minter;

    error UnauthorizedMinter(address caller);

    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) {
        minter = _msgSender();
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        if (_msgSender() != minter) revert UnauthorizedMinter(_msgSender());
        _mint(to, amount);
    }
}
